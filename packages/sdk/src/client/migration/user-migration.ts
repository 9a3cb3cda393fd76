/**
 * `client.migration`: moving a human to a new device. The old (signed-in,
 * unlocked) device opens a short-lived session and shows its code; the new
 * device, signed in to the same account, joins with the code and only then
 * sends its ephemeral key; the old device reveals the key it committed to;
 * both show a 6-digit verification string the user compares; the old device
 * then sends the account's public keys (and the app's extras) sealed to a key
 * that needs both the session and the account's private key, and the new
 * device restores the key backup with the protection password, opens the
 * bundle with it and checks it names the restored keys. Private keys only ever
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
  accountSecretOf,
  bundleKeyOf,
  commitmentOf,
  ephemeralKeyPair,
  openBundle,
  sealBundle,
  splitSealedBundle,
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
   * Waits until the new device sent its key, reveals this device's ephemeral
   * key and returns the verification string to compare. The new device's key
   * is fixed before this device reveals its own: a later call returns the
   * same string.
   *
   * @throws {@link ServiceError} `MIGRATION_SESSION_EXPIRED` when the 10 minutes pass first.
   * @throws {@link CryptoError} `MIGRATION_VERIFICATION_FAILED` when the service changes a value
   *   this device already fixed (the session is then ended).
   */
  waitForJoin(options?: MigrationWaitOptions): Promise<MigrationJoined>;
  /**
   * Sends the account's public keys and `extras` sealed to the new device
   * and to the account's key (only a device holding the account's private key
   * opens it). Call it only after the user confirmed that both devices show
   * the same verification string.
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
   * Waits for the old device's bundle, restores the key backup with the
   * protection password, opens the bundle (its key needs both this session
   * and the restored account key) and checks it names the restored keys; then
   * ends the session and adopts the keys.
   *
   * @throws {@link CryptoError} `MIGRATION_VERIFICATION_FAILED` when the bundle was not sealed by
   *   the old device for this session (a relay in the middle, or rewritten); `KEY_BACKUP_PASSWORD_INVALID`;
   *   `KEY_BACKUP_INVALID` when the backup's keys are not the old device's.
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
   * with the code the old device shows; only once it holds the session id and
   * the old device's commitment does it make and send its own ephemeral key.
   * Then waits until the old device revealed its key, and returns the
   * verification string. A code is joined once per client.
   *
   * @throws {@link ValidationError} for a malformed code (checked before anything is sent).
   * @throws {@link ServiceError} `MIGRATION_SESSION_EXPIRED` for a wrong, used or expired code.
   * @throws {@link CryptoError} `MIGRATION_VERIFICATION_FAILED` when the old device's key does not
   *   match its commitment, when the service changes the session id or the commitment after this
   *   device sent its key (a relay in the middle: the session is then ended), or for a code this
   *   client already sent a key for (start again on the old device).
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

function failed(message: string): CryptoError {
  return new CryptoError({ code: 'MIGRATION_VERIFICATION_FAILED', message });
}

function bytes(b64: string | undefined): Uint8Array {
  const out = b64 === undefined ? undefined : fromBase64(b64);
  if (out === undefined) throw failed('A session value is missing.');
  return out;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i]! ^ b[i]!;
  return d === 0;
}

function sameKey(b64: string | undefined, key: Uint8Array): boolean {
  const other = b64 === undefined ? undefined : fromBase64(b64);
  return other !== undefined && equalBytes(other, key);
}

/**
 * The session calls shared by both sides. Every view the service returns
 * passes `guard` (the values this device fixed earlier must not change) and
 * must name this session.
 */
class SessionLink {
  constructor(
    readonly deps: UserMigrationDeps,
    readonly id: string,
    readonly guard: (s: MigrationSession) => void,
  ) {}

  path(route: keyof typeof MIGRATION_ROUTES): string {
    return routePath(MIGRATION_ROUTES[route], { id: this.id });
  }

  /** Checks a view of the session; on a change, ends the session and throws. */
  async check(s: MigrationSession): Promise<MigrationSession> {
    try {
      if (s.session_id !== this.id)
        throw failed('The service named another session (relayed through a third party).');
      this.guard(s);
      return s;
    } catch (err) {
      await this.close().catch(() => undefined);
      throw err;
    }
  }

  async read(): Promise<MigrationSession> {
    return this.check(
      await this.deps.rest.get(this.path('getMigration'), { schema: MigrationSessionSchema }),
    );
  }

  async post(route: keyof typeof MIGRATION_ROUTES, body: object): Promise<MigrationSession> {
    return this.check(await this.deps.rest.post(this.path(route), body, { schema: MigrationSessionSchema }));
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
  /** The new device's key as this device first saw it; fixed before this device reveals its own. */
  #newKey: Uint8Array | undefined;
  #joined: Promise<MigrationJoined> | undefined;
  #transcript: Uint8Array | undefined;

  /** The code to show (`ABCD-EFGH`); the new device types it into `join`. */
  readonly code: string;
  /** When the session ends (10 minutes after it was opened), ms since the epoch. */
  readonly expiresAtMs: number;

  /** @internal */
  constructor(
    deps: UserMigrationDeps,
    ephemeral: RawKeyPair,
    commitment: Uint8Array,
    session: MigrationSession,
  ) {
    this.#ephemeral = ephemeral;
    this.#link = new SessionLink(deps, session.session_id, (s) => {
      if (!equalBytes(bytes(s.commitment), commitment)) throw failed('The service changed the commitment.');
      const fixed = this.#newKey;
      if (fixed !== undefined && !sameKey(s.new_ephemeral_public_key, fixed)) {
        throw failed("The new device's key changed after it was fixed (relayed through a third party).");
      }
      if (
        s.old_ephemeral_public_key !== undefined &&
        !sameKey(s.old_ephemeral_public_key, ephemeral.publicKey)
      ) {
        throw failed("The service shows another key as this device's.");
      }
    });
    this.code = formatMigrationCode(session.code ?? '');
    this.expiresAtMs = Date.parse(session.expires_at);
  }

  /** The session id. */
  get sessionId(): string {
    return this.#link.id;
  }

  /**
   * Waits until the new device sent its key, reveals this device's ephemeral
   * key and returns the verification string to compare. The new device's key
   * is fixed before this device reveals its own: a later call returns the
   * same string, and a session that shows another key fails.
   *
   * @throws {@link ServiceError} `MIGRATION_SESSION_EXPIRED` when the 10 minutes pass first.
   * @throws {@link CryptoError} `MIGRATION_VERIFICATION_FAILED` when the service changes a value
   *   this device already fixed (the session is then ended).
   */
  waitForJoin(options: MigrationWaitOptions = {}): Promise<MigrationJoined> {
    const joined = (this.#joined ??= this.#waitForJoin(options));
    joined.catch(() => {
      if (this.#joined === joined) this.#joined = undefined;
    });
    return joined;
  }

  async #waitForJoin(options: MigrationWaitOptions): Promise<MigrationJoined> {
    const s = await this.#link.until((v) => v.new_ephemeral_public_key !== undefined, options);
    const newKey = (this.#newKey ??= bytes(s.new_ephemeral_public_key));
    const { backend } = this.#link.deps;
    if (s.old_ephemeral_public_key === undefined) {
      await this.#link.post('revealMigrationKey', {
        ephemeral_public_key: toBase64(this.#ephemeral.publicKey),
      });
    }
    this.#transcript = await transcriptOf(backend, this.#link.id, this.#ephemeral.publicKey, newKey);
    return { verification: await verificationOf(backend, this.#transcript) };
  }

  /**
   * Sends the account's public keys and `extras` sealed to the new device
   * and to the account's key. Call it only after the user confirmed that
   * both devices show the same verification string.
   *
   * @throws {@link ConfigurationError} before `waitForJoin`, or without keys in memory.
   * @throws {@link ValidationError} when `extras` is not JSON or the bundle is above 32 KiB.
   */
  async complete(options: MigrationCompleteOptions = {}): Promise<void> {
    const transcript = this.#transcript;
    const newKey = this.#newKey;
    const keys = this.#link.deps.keys();
    if (transcript === undefined || newKey === undefined || keys === undefined) {
      throw new ConfigurationError({
        message:
          keys === undefined
            ? 'No keys in memory on this device: unlock them before migrating.'
            : 'Call waitForJoin() and compare the verification strings before complete().',
      });
    }
    const { backend, rest, session } = this.#link.deps;
    const plaintext = encodeMigrationBundle({
      type: 'ams.migration.bundle',
      version: 1,
      user_id: session().userId,
      public_key: toBase64(keys.encryption.publicKey),
      signing_public_key: keys.signing === undefined ? null : toBase64(keys.signing.publicKey),
      extras: JSON.parse(JSON.stringify(options.extras ?? {})) as Record<string, unknown>,
    });
    const account = await accountSecretOf(backend, keys.encryption.privateKey);
    const key = await bundleKeyOf(backend, this.#ephemeral, newKey, transcript, account);
    const sealed = await sealBundle(backend, key, transcript, keys.encryption.publicKey, plaintext);
    await rest.post(this.#link.path('sendMigrationBundle'), { bundle: toBase64(sealed) });
  }

  /** Ends the session (the new device's waits then fail with `MIGRATION_SESSION_EXPIRED`). */
  cancel(): Promise<void> {
    return this.#link.close();
  }
}

/** The new device's side. */
class Joined implements MigrationJoin {
  readonly #link: SessionLink;
  readonly #ephemeral: RawKeyPair;
  readonly #oldKey: Uint8Array;
  readonly #transcript: Uint8Array;

  /** The 6-digit verification string (`123 456`) to compare with the old device's. */
  readonly verification: string;

  /** @internal */
  constructor(
    link: SessionLink,
    ephemeral: RawKeyPair,
    oldKey: Uint8Array,
    transcript: Uint8Array,
    verification: string,
  ) {
    this.#link = link;
    this.#ephemeral = ephemeral;
    this.#oldKey = oldKey;
    this.#transcript = transcript;
    this.verification = verification;
  }

  /** The session id. */
  get sessionId(): string {
    return this.#link.id;
  }

  /**
   * Waits for the old device's bundle, restores the key backup with
   * `protectionPassword`, opens the bundle (its key needs both this session
   * and the restored account key) and checks it names the restored keys;
   * then ends the session and adopts the keys.
   *
   * @throws {@link CryptoError} `MIGRATION_VERIFICATION_FAILED` when the bundle was not sealed by the
   *   old device for this session (a relay in the middle, or rewritten); `KEY_BACKUP_PASSWORD_INVALID`;
   *   `KEY_BACKUP_INVALID` when the backup's keys are not the old device's.
   * @throws {@link ServiceError} `MIGRATION_SESSION_EXPIRED`, `KEY_BACKUP_NOT_FOUND`.
   */
  async receive(options: MigrationReceiveOptions): Promise<MigrationResult> {
    const s = await this.#link.until((v) => v.bundle !== undefined, options);
    const { deps } = this.#link;
    const sealed = bytes(s.bundle);
    const parts = splitSealedBundle(sealed);
    if (parts === undefined) throw failed('The migration bundle is malformed (tampered).');
    const keys = await deps.restore(options.protectionPassword);
    if (!equalBytes(keys.encryption.publicKey, parts.accountPublicKey)) {
      throw new CryptoError({
        code: 'KEY_BACKUP_INVALID',
        message: "The key backup does not hold the old device's keys (replaced or outdated backup).",
      });
    }
    const account = await accountSecretOf(deps.backend, keys.encryption.privateKey);
    const key = await bundleKeyOf(deps.backend, this.#ephemeral, this.#oldKey, this.#transcript, account);
    const bundle = parseMigrationBundle(await openBundle(deps.backend, key, this.#transcript, sealed));
    const signing = bundle.signing_public_key === null ? undefined : bytes(bundle.signing_public_key);
    if (
      bundle.user_id !== deps.session().userId ||
      !equalBytes(keys.encryption.publicKey, bytes(bundle.public_key)) ||
      (signing === undefined) !== (keys.signing === undefined) ||
      (signing !== undefined && keys.signing !== undefined && !equalBytes(signing, keys.signing.publicKey))
    ) {
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
  /** Codes this client already sent a key for: a second join would give a relay a second guess. */
  readonly #keyed = new Set<string>();

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
    return new Offer(this.#deps, ephemeral, commitment, s);
  }

  /**
   * On the new device (signed in to the same account): joins the session
   * with the code the old device shows; only once it holds the session id
   * and the old device's commitment does it make and send its own ephemeral
   * key. Then waits until the old device revealed its key, and returns the
   * verification string.
   *
   * @throws {@link ValidationError} for a malformed code (checked before anything is sent).
   * @throws {@link ServiceError} `MIGRATION_SESSION_EXPIRED` for a wrong, used or expired code.
   * @throws {@link CryptoError} `MIGRATION_VERIFICATION_FAILED` when the old device's key does not
   *   match its commitment, when the service changes the session id or the commitment after this
   *   device sent its key (a relay in the middle: the session is then ended), or for a code this
   *   client already sent a key for (start again on the old device).
   */
  async join(code: string, options: MigrationWaitOptions = {}): Promise<MigrationJoin> {
    const canonical = parseMigrationCode(code);
    this.#deps.session();
    if (this.#keyed.has(canonical)) {
      throw failed(
        'This device already joined with this code: start the migration again on the old device (a new code, and a new string on both screens).',
      );
    }
    const { backend, rest } = this.#deps;
    const joined = await rest.post(
      routePath(MIGRATION_ROUTES.joinMigration),
      { code: canonical },
      { schema: MigrationSessionSchema },
    );
    // Fixed now, before this device's key leaves it: the session id and the commitment.
    const commitment = bytes(joined.commitment);
    const ephemeral = ephemeralKeyPair(backend);
    const link = new SessionLink(this.#deps, joined.session_id, (s) => {
      if (!equalBytes(bytes(s.commitment), commitment)) {
        throw failed(
          'The service changed the commitment after this device joined (relayed through a third party).',
        );
      }
      if (
        s.new_ephemeral_public_key !== undefined &&
        !sameKey(s.new_ephemeral_public_key, ephemeral.publicKey)
      ) {
        throw failed("The service shows another key as this device's (relayed through a third party).");
      }
    });
    this.#keyed.add(canonical);
    await link.post('submitMigrationKey', { ephemeral_public_key: toBase64(ephemeral.publicKey) });
    const s = await link.until((v) => v.old_ephemeral_public_key !== undefined, options);
    const oldKey = bytes(s.old_ephemeral_public_key);
    if (!equalBytes(await commitmentOf(backend, oldKey), commitment)) {
      await link.close().catch(() => undefined);
      throw failed("The old device's key does not match its commitment (relayed through a third party).");
    }
    const transcript = await transcriptOf(backend, link.id, oldKey, ephemeral.publicKey);
    return new Joined(link, ephemeral, oldKey, transcript, await verificationOf(backend, transcript));
  }
}

/** Creates `client.migration` over the client's parts. */
export function createUserMigration(deps: UserMigrationDeps): UserMigration {
  return new Migration(deps);
}
