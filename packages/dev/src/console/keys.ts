/**
 * The dev user's keys in the browser: generated with WebCrypto randomness,
 * kept in the page's `localStorage` (this origin only), published through
 * the key backup (`POST /keys/backup`, private keys sealed under a random
 * protection password that also stays in the page). Messages are sealed and
 * opened here with the portable backend; the server only sees ciphertext.
 *
 * @module
 */
import { fromBase64, toBase64 } from 'agent-messaging-sdk/protocol';
import { portableBackend } from 'agent-messaging-sdk/protocol';
import { createKeyBackup } from 'agent-messaging-sdk/protocol';
import { keysFromPrivate, type AgentKeys } from 'agent-messaging-sdk/protocol';
import { openAsync } from 'agent-messaging-sdk/protocol';
import type { OpenedEnvelope } from 'agent-messaging-sdk/protocol';
import type { EnvelopePayload } from 'agent-messaging-sdk/protocol';
import { sealAsync } from 'agent-messaging-sdk/protocol';

/** What the page keeps about its dev user (in `localStorage`). */
export interface StoredUser {
  readonly userId: string;
  readonly email: string;
  readonly deviceId: string;
  /** Base64 raw private keys (X25519, Ed25519). */
  readonly encryptionPrivate: string;
  readonly signingPrivate: string;
}

const STORAGE_KEY = 'ams-console-user';

/** Cheapest Argon2id the reference server accepts: a dev key backup, not a real one. */
const DEV_BACKUP_PARAMS = { m: 8, t: 1, p: 1 } as const;

/** The stored dev user, if any. */
export function loadUser(): StoredUser | undefined {
  const text = localStorage.getItem(STORAGE_KEY);
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as StoredUser;
  } catch {
    localStorage.removeItem(STORAGE_KEY);
    return undefined;
  }
}

/** Keeps the dev user in this origin's storage. */
export function saveUser(user: StoredUser): void {
  localStorage.setItem(STORAGE_KEY, JSON.stringify(user));
}

const random32 = (): Uint8Array => portableBackend.randomBytes(32);

/** Fresh key pairs (private keys as base64 for storage). */
export function newKeys(): { encryptionPrivate: string; signingPrivate: string } {
  return { encryptionPrivate: toBase64(random32()), signingPrivate: toBase64(random32()) };
}

/** The key pairs of a stored user. */
export function keysOf(user: Pick<StoredUser, 'encryptionPrivate' | 'signingPrivate'>): AgentKeys {
  return keysFromPrivate(fromBase64(user.encryptionPrivate)!, fromBase64(user.signingPrivate)!, {
    backend: portableBackend,
  });
}

/** The key backup record to publish the user's public keys with (`POST /keys/backup`). */
export async function backupRecord(keys: AgentKeys, deviceId: string): Promise<Record<string, unknown>> {
  const password = toBase64(random32());
  const record = await createKeyBackup(keys, password, {
    deviceId,
    params: DEV_BACKUP_PARAMS,
    minParams: DEV_BACKUP_PARAMS,
  });
  return record as unknown as Record<string, unknown>;
}

/** A recipient of a sealed message. */
export interface Recipient {
  readonly id: string;
  readonly publicKey: Uint8Array;
}

/** Seals a text message in the browser. */
export function sealText(text: string, o: SealContext): Promise<string> {
  return sealPayload({ type: 'text', text }, o);
}

/** Who seals, for whom, where and when. */
export interface SealContext {
  readonly userId: string;
  readonly keys: AgentKeys;
  readonly conversationId: string;
  readonly recipients: readonly Recipient[];
  /** The server's "now" (it may run on a virtual clock). */
  readonly nowMs: number;
  /** The event type sealed under the signature. @defaultValue `'message.new'` */
  readonly eventType?: string;
}

/** Seals any payload in the browser (an artifact answer, a reaction…). */
export function sealPayload(payload: EnvelopePayload, o: SealContext): Promise<string> {
  return sealAsync(payload, {
    sender: { id: o.userId, signing: o.keys.signing },
    recipients: o.recipients,
    conversationId: o.conversationId,
    createdAt: new Date(o.nowMs),
    backend: portableBackend,
    ...(o.eventType === undefined ? {} : { eventType: o.eventType }),
  });
}

/** Opens a message in the browser, checking the sender's signature. */
export function openWire(
  wire: string,
  o: { userId: string; keys: AgentKeys; signingKey: (id: string) => Promise<Uint8Array | undefined> },
): Promise<OpenedEnvelope> {
  return openAsync(wire, {
    recipientId: o.userId,
    keys: o.keys,
    senderKey: o.signingKey,
    backend: portableBackend,
  });
}
