/**
 * `client.migration`: moving a human to a new device. The old (signed-in,
 * unlocked) device opens a short-lived session and shows its code; the new
 * device, signed in to the same account, joins with the code; both show a
 * 6-digit verification string the user compares; the old device then sends
 * the account's public keys (and the app's extras) sealed to the session
 * key, and the new device restores the key backup with the protection
 * password, checked against those public keys. Private keys only ever
 * travel as the password-encrypted backup. docs/device-migration.md.
 *
 * @module
 */
import type { Clock } from '../../core/clock.js';
import { fromBase64, toBase64 } from '../../core/encoding.js';
import { ConfigurationError } from '../../core/errors/configuration-error.js';
import { CryptoError } from '../../core/errors/crypto-error.js';
import {
  MigrationSessionSchema,
  parseMigrationCode,
  formatMigrationCode,
  type MigrationSession,
} from '../../core/protocol/migration.js';
import { MIGRATION_ROUTES, routePath } from '../../core/protocol/service-names.js';
import type { CryptoBackend, RawKeyPair } from '../../crypto/backend/types.js';
import { clockSleep } from '../../transport/rest/options.js';
import type { RestClient } from '../../transport/rest/client.js';
import type { SessionInfo } from '../session.js';
import type { UserKeySet } from '../user-keys.js';
import { encodeMigrationBundle, parseMigrationBundle } from './migration-bundle.js';
import {
  bundleKeyOf,
  commitmentOf,
  ephemeralKeyPair,
  openBundle,
  sealBundle,
  transcriptOf,
  verificationOf,
} from './migration-crypto.js';

/** Options of the waiting steps. */
export interface MigrationWaitOptions {
  /** How often the session is polled. @defaultValue 1000 ms */
  readonly pollIntervalMs?: number;
  /** Stops waiting (the promise rejects with the signal's reason). */
  readonly signal?: AbortSignal;
}

/** What the old device shows once the new device joined. */
export interface MigrationJoined {
  /** The 6-digit verification string (`123 456`) to compare with the new device's. */
  readonly verification: string;
}

/** What the new device ends with. */
export interface MigrationResult {
  /** The fingerprint of the restored X25519 key (the same as on the old device). */
  readonly keyFingerprint: string;
  /** What the old device passed in `complete({ extras })`. */
  readonly extras: Readonly<Record<string, unknown>>;
}

/**
 * The old device's side of a session opened by {@link UserMigration.start}.
 *
 * @example
 * ```ts
 * const offer = await client.migration.start();
 * show(offer.code);                                  // 'K7QF-2M9D'
 * const { verification } = await offer.waitForJoin(); // '482 019': compare with the new device
 * if (await userConfirms(verification)) await offer.complete(); else await offer.cancel();
 * ```
 */
export interface MigrationOffer {
  /** The code to show (`ABCD-EFGH`); the new device types it into `join`. */
  readonly code: string;
  /** When the session ends (10 minutes after it was opened), ms since the epoch. */
  readonly expiresAtMs: number;
  /** The session id. */
  readonly sessionId: string;
  /**
   * Waits until the new device joins, reveals this device's ephemeral key and
   * returns the verification string to compare.
   *
   * @throws {@link ServiceError} `MIGRATION_SESSION_EXPIRED` when the 10 minutes pass first.
   */
  waitForJoin(options?: MigrationWaitOptions): Promise<MigrationJoined>;
  /**
   * Sends the account's public keys and `extras` sealed to the new device.
   * Call it only after the user confirmed that both devices show the same
   * verification string.
   *
   * @throws {@link ConfigurationError} before `waitForJoin`, or without keys in memory.
   * @throws {@link ValidationError} when `extras` is not JSON or the bundle is above 32 KiB.
   * @throws {@link ServiceError} `MIGRATION_SESSION_EXPIRED`.
   */
  complete(options?: MigrationCompleteOptions): Promise<void>;
  /** Ends the session (the new device's waits then fail with `MIGRATION_SESSION_EXPIRED`). */
  cancel(): Promise<void>;
}

/** Options of {@link MigrationOffer.complete}. */
export interface MigrationCompleteOptions {
  /** The app's own JSON data for the new device (settings, pinned peers …), sealed with the keys. */
  readonly extras?: Readonly<Record<string, unknown>>;
}

/** Options of {@link MigrationJoin.receive}. */
export interface MigrationReceiveOptions extends MigrationWaitOptions {
  /** The protection password: the key backup is restored with it on this device. */
  readonly protectionPassword: string;
}

/**
 * The new device's side of a session joined with {@link UserMigration.join}.
 *
 * @example
 * ```ts
 * const joined = await client.migration.join('K7QF-2M9D');
 * show(joined.verification); // must equal the old device's
 * const { keyFingerprint } = await joined.receive({ protectionPassword });
 * ```
 */
export interface MigrationJoin {
  /** The 6-digit verification string (`123 456`) to compare with the old device's. */
  readonly verification: string;
  /** The session id. */
  readonly sessionId: string;
  /**
   * Waits for the old device's bundle, opens it, restores the key backup with
   * the protection password and checks it holds the old device's keys; then
   * ends the session and adopts the keys.
   *
   * @throws {@link CryptoError} `MIGRATION_VERIFICATION_FAILED` when the bundle was not sealed for
   *   this session (a relay in the middle); `KEY_BACKUP_PASSWORD_INVALID`; `KEY_BACKUP_INVALID` when
   *   the backup's keys are not the old device's.
   * @throws {@link ServiceError} `MIGRATION_SESSION_EXPIRED`, `KEY_BACKUP_NOT_FOUND`.
   */
  receive(options: MigrationReceiveOptions): Promise<MigrationResult>;
  /** Ends the session. */
  cancel(): Promise<void>;
}

/** Device migration for the signed-in user: `client.migration`. */
export interface UserMigration {
  /**
   * On the old device (signed in, keys unlocked): opens a migration session
   * for 10 minutes. An earlier open session of this device ends.
   *
   * @throws {@link ConfigurationError} before sign-in or without keys in memory.
   */
  start(): Promise<MigrationOffer>;
  /**
   * On the new device (signed in to the same account): joins the session
   * with the code the old device shows, waits until the old device revealed
   * its key, and returns the verification string.
   *
   * @throws {@link ValidationError} for a malformed code (checked before anything is sent).
   * @throws {@link ServiceError} `MIGRATION_SESSION_EXPIRED` for a wrong, used or expired code.
   * @throws {@link CryptoError} `MIGRATION_VERIFICATION_FAILED` when the old device's key does not
   *   match its commitment (a relay in the middle); the session is then ended.
   */
  join(code: string, options?: MigrationWaitOptions): Promise<MigrationJoin>;
}

/** What the migration needs from the client. */
export interface UserMigrationDeps {
  readonly rest: RestClient;
  readonly backend: CryptoBackend;
  readonly clock: Clock;
  readonly session: () => SessionInfo;
  readonly keys: () => UserKeySet | undefined;
  /** Restores the backup with the password (not yet adopted), refusing another signing key. */
  readonly restore: (
    protectionPassword: string,
    expectedSigningPublicKey?: Uint8Array,
  ) => Promise<UserKeySet>;
  /** Adopts restored keys; returns their fingerprint. */
  readonly adopt: (keys: UserKeySet) => string;
}

const DEFAULT_POLL_MS = 1000;

function bytes(b64: string | undefined): Uint8Array {
  const out = b64 === undefined ? undefined : fromBase64(b64);
  if (out === undefined)
    throw new CryptoError({ code: 'MIGRATION_VERIFICATION_FAILED', message: 'A session value is missing.' });
  return out;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i]! ^ b[i]!;
  return d === 0;
}

/** The session calls shared by both sides. */
class SessionLink {
  constructor(
    readonly deps: UserMigrationDeps,
    readonly id: string,
  ) {}

  path(route: keyof typeof MIGRATION_ROUTES): string {
    return routePath(MIGRATION_ROUTES[route], { id: this.id });
  }

  async read(): Promise<MigrationSession> {
    return this.deps.rest.get(this.path('getMigration'), { schema: MigrationSessionSchema });
  }

  /** Polls until `done` holds; a 404 `MIGRATION_SESSION_EXPIRED` ends the wait. */
  async until(done: (s: MigrationSession) => boolean, o: MigrationWaitOptions): Promise<MigrationSession> {
    const sleep = clockSleep(this.deps.clock);
    for (;;) {
      const s = await this.read();
      if (done(s)) return s;
      await sleep(o.pollIntervalMs ?? DEFAULT_POLL_MS, o.signal);
    }
  }

  async close(): Promise<void> {
    await this.deps.rest.delete(this.path('closeMigration'));
  }
}

/** The old device's side. */
class Offer implements MigrationOffer {
  readonly #link: SessionLink;
  readonly #ephemeral: RawKeyPair;
  #sealing: { key: Uint8Array; transcript: Uint8Array } | undefined;

  /** The code to show (`ABCD-EFGH`); the new device types it into `join`. */
  readonly code: string;
  /** When the session ends (10 minutes after it was opened), ms since the epoch. */
  readonly expiresAtMs: number;

  /** @internal */
  constructor(link: SessionLink, ephemeral: RawKeyPair, session: MigrationSession) {
    this.#link = link;
    this.#ephemeral = ephemeral;
    this.code = formatMigrationCode(session.code ?? '');
    this.expiresAtMs = Date.parse(session.expires_at);
  }

  /** The session id. */
  get sessionId(): string {
    return this.#link.id;
  }

  /**
   * Waits until the new device joins, reveals this device's ephemeral key and
   * returns the verification string to compare.
   *
   * @throws {@link ServiceError} `MIGRATION_SESSION_EXPIRED` when the 10 minutes pass first.
   */
  async waitForJoin(options: MigrationWaitOptions = {}): Promise<MigrationJoined> {
    const s = await this.#link.until((v) => v.state !== 'open', options);
    const newKey = bytes(s.new_ephemeral_public_key);
    const { backend, rest } = this.#link.deps;
    if (s.state === 'joined') {
      await rest.post(this.#link.path('revealMigrationKey'), {
        ephemeral_public_key: toBase64(this.#ephemeral.publicKey),
      });
    }
    const transcript = await transcriptOf(backend, this.#link.id, this.#ephemeral.publicKey, newKey);
    const key = await bundleKeyOf(backend, this.#ephemeral, newKey, transcript);
    this.#sealing = { key, transcript };
    return { verification: await verificationOf(backend, transcript) };
  }

  /**
   * Sends the account's public keys and `extras` sealed to the new device.
   * Call it only after the user confirmed that both devices show the same
   * verification string.
   *
   * @throws {@link ConfigurationError} before `waitForJoin`, or without keys in memory.
   * @throws {@link ValidationError} when `extras` is not JSON or the bundle is above 32 KiB.
   */
  async complete(options: MigrationCompleteOptions = {}): Promise<void> {
    const sealing = this.#sealing;
    const keys = this.#link.deps.keys();
    if (sealing === undefined || keys === undefined) {
      throw new ConfigurationError({
        message:
          sealing === undefined
            ? 'Call waitForJoin() and compare the verification strings before complete().'
            : 'No keys in memory on this device: unlock them before migrating.',
      });
    }
    const plaintext = encodeMigrationBundle({
      type: 'ams.migration.bundle',
      version: 1,
      user_id: this.#link.deps.session().userId,
      public_key: toBase64(keys.encryption.publicKey),
      signing_public_key: keys.signing === undefined ? null : toBase64(keys.signing.publicKey),
      extras: JSON.parse(JSON.stringify(options.extras ?? {})) as Record<string, unknown>,
    });
    const sealed = await sealBundle(this.#link.deps.backend, sealing.key, sealing.transcript, plaintext);
    await this.#link.deps.rest.post(this.#link.path('sendMigrationBundle'), { bundle: toBase64(sealed) });
  }

  /** Ends the session (the new device's waits then fail with `MIGRATION_SESSION_EXPIRED`). */
  cancel(): Promise<void> {
    return this.#link.close();
  }
}

/** The new device's side. */
class Joined implements MigrationJoin {
  readonly #link: SessionLink;
  readonly #key: Uint8Array;
  readonly #transcript: Uint8Array;

  /** The 6-digit verification string (`123 456`) to compare with the old device's. */
  readonly verification: string;

  /** @internal */
  constructor(link: SessionLink, key: Uint8Array, transcript: Uint8Array, verification: string) {
    this.#link = link;
    this.#key = key;
    this.#transcript = transcript;
    this.verification = verification;
  }

  /** The session id. */
  get sessionId(): string {
    return this.#link.id;
  }

  /**
   * Waits for the old device's bundle, opens it, restores the key backup with
   * `protectionPassword` and checks it holds the old device's keys; then ends
   * the session and adopts the keys.
   *
   * @throws {@link CryptoError} `MIGRATION_VERIFICATION_FAILED` when the bundle was not sealed for
   *   this session (a relay in the middle); `KEY_BACKUP_PASSWORD_INVALID`; `KEY_BACKUP_INVALID` when the
   *   backup's keys are not the old device's.
   * @throws {@link ServiceError} `MIGRATION_SESSION_EXPIRED`, `KEY_BACKUP_NOT_FOUND`.
   */
  async receive(options: MigrationReceiveOptions): Promise<MigrationResult> {
    const s = await this.#link.until((v) => v.bundle !== undefined, options);
    const { deps } = this.#link;
    const opened = await openBundle(deps.backend, this.#key, this.#transcript, bytes(s.bundle));
    const bundle = parseMigrationBundle(opened);
    if (bundle.user_id !== deps.session().userId) {
      throw new CryptoError({
        code: 'MIGRATION_VERIFICATION_FAILED',
        message: 'The bundle is for another account.',
      });
    }
    const signing = bundle.signing_public_key === null ? undefined : bytes(bundle.signing_public_key);
    const keys = await deps.restore(options.protectionPassword, signing);
    if (!equalBytes(keys.encryption.publicKey, bytes(bundle.public_key))) {
      throw new CryptoError({
        code: 'KEY_BACKUP_INVALID',
        message: "The key backup does not hold the old device's keys (replaced or outdated backup).",
      });
    }
    await this.#link.close();
    return { keyFingerprint: deps.adopt(keys), extras: bundle.extras };
  }

  /** Ends the session. */
  cancel(): Promise<void> {
    return this.#link.close();
  }
}

/** `client.migration`. */
class Migration implements UserMigration {
  readonly #deps: UserMigrationDeps;

  /** @internal */
  constructor(deps: UserMigrationDeps) {
    this.#deps = deps;
  }

  /**
   * On the old device (signed in, keys unlocked): opens a migration session
   * for 10 minutes. An earlier open session of this device ends.
   *
   * @throws {@link ConfigurationError} before sign-in or without keys in memory.
   */
  async start(): Promise<MigrationOffer> {
    this.#deps.session();
    if (this.#deps.keys() === undefined) {
      throw new ConfigurationError({
        message: 'No keys in memory on this device: unlock them before migrating.',
      });
    }
    const ephemeral = ephemeralKeyPair(this.#deps.backend);
    const commitment = await commitmentOf(this.#deps.backend, ephemeral.publicKey);
    const s = await this.#deps.rest.post(
      routePath(MIGRATION_ROUTES.startMigration),
      { commitment: toBase64(commitment) },
      { schema: MigrationSessionSchema },
    );
    return new Offer(new SessionLink(this.#deps, s.session_id), ephemeral, s);
  }

  /**
   * On the new device (signed in to the same account): joins the session
   * with the code the old device shows and waits until the old device
   * revealed its key, then returns the verification string.
   *
   * @throws {@link ValidationError} for a malformed code (checked before anything is sent).
   * @throws {@link ServiceError} `MIGRATION_SESSION_EXPIRED` for a wrong, used or expired code.
   * @throws {@link CryptoError} `MIGRATION_VERIFICATION_FAILED` when the old device's key does not
   *   match its commitment (a relay in the middle); the session is then ended.
   */
  async join(code: string, options: MigrationWaitOptions = {}): Promise<MigrationJoin> {
    const canonical = parseMigrationCode(code);
    this.#deps.session();
    const { backend } = this.#deps;
    const ephemeral = ephemeralKeyPair(backend);
    const joined = await this.#deps.rest.post(
      routePath(MIGRATION_ROUTES.joinMigration),
      { code: canonical, ephemeral_public_key: toBase64(ephemeral.publicKey) },
      { schema: MigrationSessionSchema },
    );
    const link = new SessionLink(this.#deps, joined.session_id);
    const s = await link.until((v) => v.old_ephemeral_public_key !== undefined, options);
    const oldKey = bytes(s.old_ephemeral_public_key);
    if (!equalBytes(await commitmentOf(backend, oldKey), bytes(joined.commitment))) {
      await link.close().catch(() => undefined);
      throw new CryptoError({
        code: 'MIGRATION_VERIFICATION_FAILED',
        message: "The old device's key does not match its commitment (relayed through a third party).",
      });
    }
    const transcript = await transcriptOf(backend, link.id, oldKey, ephemeral.publicKey);
    const key = await bundleKeyOf(backend, ephemeral, oldKey, transcript);
    return new Joined(link, key, transcript, await verificationOf(backend, transcript));
  }
}

/** Creates `client.migration` over the client's parts. */
export function createUserMigration(deps: UserMigrationDeps): UserMigration {
  return new Migration(deps);
}
