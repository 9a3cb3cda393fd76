/**
 * The reference server's state, behind one interface so another backend can
 * replace the in-memory one. Every method that reads and then writes is one
 * atomic operation of the store (the lock counter, code attempts, refresh
 * rotation, the device limit), so concurrent requests cannot race past a rule.
 *
 * Times are ms since the epoch, read from the server's clock by the caller.
 *
 * @module
 */
import type { KeyBackupRecord } from 'agent-messaging-sdk/protocol';
import type { AgentStore, ConversationStore, MessageStore } from './agent-types.js';
import type { GroupStore } from './group-types.js';

/** A human account. */
export interface UserRecord {
  readonly userId: string;
  /** Normalised (trimmed, lower-case) address. */
  readonly email: string;
  readonly emailVerified: boolean;
  readonly displayName: string;
  readonly deviceLocale: string;
  /** PHC scrypt string. */
  readonly passwordHash: string;
  readonly createdAtMs: number;
  /** Consecutive failed password logins since the last success or lock. */
  readonly failedLogins: number;
  /** End of the current lock; 0 when not locked. */
  readonly lockedUntilMs: number;
  /** How many times the account has been locked (for tests and the control API). */
  readonly lockCount: number;
}

/** Fields of a new account. */
export type NewUser = Pick<
  UserRecord,
  'userId' | 'email' | 'emailVerified' | 'displayName' | 'deviceLocale' | 'passwordHash' | 'createdAtMs'
>;

/** Outcome of a failed password. */
export type LoginFailureOutcome =
  | { readonly locked: false; readonly failedLogins: number }
  | { readonly locked: true; readonly lockedUntilMs: number; readonly newlyLocked: boolean };

/** The lock rule, passed in so the store holds no policy. */
export interface LockPolicy {
  readonly maxFailures: number;
  readonly lockMs: number;
}

/** Accounts. */
export interface UserStore {
  /** Creates an account; `'email_taken'` if the address exists. */
  create(user: NewUser): Promise<UserRecord | 'email_taken'>;
  byId(userId: string): Promise<UserRecord | undefined>;
  byEmail(email: string): Promise<UserRecord | undefined>;
  /** Counts a failed password and locks on the last allowed one. Atomic. */
  recordLoginFailure(userId: string, nowMs: number, policy: LockPolicy): Promise<LoginFailureOutcome>;
  /** Resets the failure count unless locked; returns the lock end when locked. Atomic. */
  recordLoginSuccess(userId: string, nowMs: number): Promise<{ readonly lockedUntilMs: number } | 'ok'>;
  /** Sets a new password hash and clears failures and any lock. */
  setPassword(userId: string, passwordHash: string): Promise<void>;
  markEmailVerified(userId: string): Promise<void>;
}

/** A device of an account, with its one session and current refresh token. */
export interface DeviceRecord {
  readonly userId: string;
  readonly deviceId: string;
  readonly name: string;
  /** The device session every access token of this device names (`sid`). */
  readonly sessionId: string;
  readonly createdAtMs: number;
  readonly lastSeenAtMs: number;
  /** SHA-256 (base64url) of the current refresh token. */
  readonly refreshHash: string;
  readonly refreshExpiresAtMs: number;
}

/** Input of {@link DeviceStore.signIn}. */
export interface DeviceSignIn {
  readonly userId: string;
  readonly deviceId: string;
  readonly name: string;
  readonly nowMs: number;
  readonly maxDevices: number;
  /** Session id for a new device (an existing device keeps its own). */
  readonly newSessionId: string;
  readonly refreshHash: string;
  readonly refreshExpiresAtMs: number;
}

/** Outcome of {@link DeviceStore.signIn}. */
export type DeviceSignInOutcome =
  | { readonly ok: true; readonly device: DeviceRecord; readonly created: boolean }
  | { readonly ok: false; readonly reason: 'device_limit' | 'name_taken' };

/** Outcome of {@link DeviceStore.rotateRefresh}. */
export type RefreshRotation =
  | { readonly ok: true; readonly device: DeviceRecord }
  | { readonly ok: false; readonly reason: 'unknown' | 'expired' }
  /** A rotated-out token came back: the device session was revoked (returned). */
  | { readonly ok: false; readonly reason: 'reused'; readonly revoked: DeviceRecord | undefined };

/** Devices, their sessions and refresh tokens. Devices whose refresh token expired count as gone. */
export interface DeviceStore {
  /** Adds the device or re-signs it in (new refresh token, same session). Atomic with the limits. */
  signIn(input: DeviceSignIn): Promise<DeviceSignInOutcome>;
  /** Live devices of an account, oldest first. */
  list(userId: string, nowMs: number): Promise<readonly DeviceRecord[]>;
  /** The live device, if any. */
  get(userId: string, deviceId: string, nowMs: number): Promise<DeviceRecord | undefined>;
  /** Swaps the refresh token `oldHash` for `newHash`. Atomic. */
  rotateRefresh(
    oldHash: string,
    newHash: string,
    newExpiresAtMs: number,
    nowMs: number,
  ): Promise<RefreshRotation>;
  /** Removes one device (and its session and tokens); returns it if it existed. */
  remove(userId: string, deviceId: string): Promise<DeviceRecord | undefined>;
  /** Removes every device of an account; returns them. */
  removeAll(userId: string): Promise<readonly DeviceRecord[]>;
}

/** Scenes of a verification code. */
export type CodeScene = 'register' | 'login' | 'reset';

/** Outcome of {@link CodeStore.consume}. */
export type CodeCheck = 'ok' | 'invalid' | 'expired' | 'too_many_attempts' | 'missing';

/** Outstanding verification codes, one per (email, scene). */
export interface CodeStore {
  /** Stores a code, replacing any earlier one for the same email and scene. */
  put(email: string, scene: CodeScene, code: string, expiresAtMs: number, attempts: number): Promise<void>;
  /** Checks a code: single use, expiring, a limited number of wrong attempts. Atomic. */
  consume(email: string, scene: CodeScene, code: string, nowMs: number): Promise<CodeCheck>;
}

/** A stored key backup. */
export interface StoredKeyBackup {
  readonly record: KeyBackupRecord;
  readonly uploadedAtMs: number;
}

/** Password-encrypted key backups, one per account. */
export interface KeyBackupStore {
  /** Stores (or replaces) the backup; `created` is false on a replacement. */
  put(userId: string, backup: StoredKeyBackup): Promise<{ readonly created: boolean }>;
  get(userId: string): Promise<StoredKeyBackup | undefined>;
}

/** A registered passkey. */
export interface PasskeyRecord {
  /** base64url credential id. */
  readonly credentialId: string;
  readonly userId: string;
  /** COSE public key. */
  readonly publicKey: Uint8Array;
  readonly counter: number;
  readonly transports: readonly string[];
  readonly name: string;
  readonly createdAtMs: number;
  readonly lastUsedAtMs: number | undefined;
}

/** A WebAuthn challenge waiting for its answer. */
export interface ChallengeRecord {
  /** base64url challenge. */
  readonly challenge: string;
  readonly purpose: 'login' | 'register';
  /** For registration: the signed-in user. */
  readonly userId: string | undefined;
  readonly expiresAtMs: number;
}

/** Passkeys and their challenges. */
export interface PasskeyStore {
  /** Adds a passkey; `'exists'` when the credential id is already registered. */
  add(record: PasskeyRecord): Promise<PasskeyRecord | 'exists'>;
  byCredentialId(credentialId: string): Promise<PasskeyRecord | undefined>;
  listByUser(userId: string): Promise<readonly PasskeyRecord[]>;
  /** Records a use: new signature counter and time. */
  recordUse(credentialId: string, counter: number, nowMs: number): Promise<void>;
  remove(userId: string, credentialId: string): Promise<boolean>;
  /** Stores a challenge, dropping expired ones. */
  putChallenge(challenge: ChallengeRecord, nowMs: number): Promise<void>;
  /** Takes a challenge (single use); undefined when unknown or expired. */
  takeChallenge(challenge: string, nowMs: number): Promise<ChallengeRecord | undefined>;
}

/** All of the server's state. */
export interface Store {
  readonly users: UserStore;
  readonly devices: DeviceStore;
  readonly codes: CodeStore;
  readonly keyBackups: KeyBackupStore;
  readonly passkeys: PasskeyStore;
  readonly agents: AgentStore;
  readonly conversations: ConversationStore;
  readonly messages: MessageStore;
  /** Groups and their invite codes (a group is a conversation kind; see `group-types.ts`). */
  readonly groups: GroupStore;
}
