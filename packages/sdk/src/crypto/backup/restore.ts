/**
 * Restoring keys from a key backup record. Order of checks:
 *
 * 1. shape and form (`KEY_BACKUP_INVALID`, see `check.ts`: a full backup
 *    stripped to the minimal form is refused here), then the caller's
 *    `expectedSigningPublicKey` (`KEY_BACKUP_INVALID`), before any expensive work;
 * 2. Argon2id parameters against the floor (`KEY_BACKUP_PARAMS_TOO_WEAK`),
 *    so a server cannot downgrade the derivation;
 * 3. derive the key and open `backup_a` (associated data per layout version,
 *    see `layout.ts`): a failed tag means the password is wrong or the record
 *    was altered (`KEY_BACKUP_PASSWORD_INVALID`);
 * 4. open `backup_b` (full form): the password is now known good, so a
 *    failure is `KEY_BACKUP_INVALID`;
 * 5. the decrypted private keys must give the record's public keys
 *    (`KEY_BACKUP_INVALID`).
 *
 * @module
 */
import { fromBase64 } from '../../core/encoding.js';
import { CryptoError } from '../../core/errors/crypto-error.js';
import { ValidationError } from '../../core/errors/validation-error.js';
import { keysFromPrivate, type AgentKeys, type KeyPair } from '../keys.js';
import { deriveBackupKey } from './kdf.js';
import { BACKUP_KEY_ID, equalBytes, openPrivateKey, type BlobBinding } from './layout.js';
import { isFullKeyBackup, type Argon2Params, type KeyBackupRecord } from '../../core/protocol/key-backup.js';
import { checkKeyBackupRecord } from './check.js';
import {
  ARGON2_PARAMS_FLOOR,
  MINIMAL_FORM_ARGON2_PARAMS,
  assertArgon2Floor,
  parseArgon2Option,
} from './params.js';

/** Options of {@link restoreKeyBackup}. */
export interface RestoreKeyBackupOptions {
  /**
   * The floor a record's parameters must reach. Only lower it in tests.
   * @defaultValue {@link ARGON2_PARAMS_FLOOR}
   */
  minParams?: Argon2Params;
  /**
   * Parameters the minimal form implies (it carries none); must equal those it was created with.
   * @defaultValue {@link MINIMAL_FORM_ARGON2_PARAMS}
   */
  minimalFormParams?: Argon2Params;
  /**
   * The user's registered Ed25519 public key, when the caller knows it (from
   * the key directory, `GET /keys/:id`, or an earlier session). Then a
   * minimal-form record (no signing key) is refused as a possible downgrade,
   * and a full-form record must carry this `signing_public_key`; both
   * `KEY_BACKUP_INVALID`, before any derivation. This is the only defence for
   * backups of layout version 1, whose `backup_a` does not bind the form.
   */
  expectedSigningPublicKey?: Uint8Array;
}

/** Keys restored from a full-form record: both pairs. */
export interface RestoredFullKeyBackup {
  readonly form: 'full';
  /** Both key pairs, checked against the record's public keys. */
  readonly keys: AgentKeys;
  /** The record's `device_id`. */
  readonly deviceId: string;
  /** The Argon2id parameters used. */
  readonly params: Argon2Params;
}

/** Keys restored from a minimal-form record: the X25519 pair only. */
export interface RestoredMinimalKeyBackup {
  readonly form: 'minimal';
  /** The X25519 pair, checked against the record's `public_key`. The Ed25519 pair is not in this form. */
  readonly encryption: KeyPair;
  /** The record's `device_id`. */
  readonly deviceId: string;
  /** The Argon2id parameters used (the implied ones). */
  readonly params: Argon2Params;
}

/** What {@link restoreKeyBackup} returns, by the record's form. */
export type RestoredKeyBackup = RestoredFullKeyBackup | RestoredMinimalKeyBackup;

function invalid(message: string): CryptoError {
  return new CryptoError({ code: 'KEY_BACKUP_INVALID', message });
}

// Shape was checked by checkKeyBackupRecord, so these decode.
function decoded(text: string): Uint8Array {
  const bytes = fromBase64(text);
  if (bytes === undefined) throw invalid('Key backup record is invalid: a field is not base64');
  return bytes;
}

function checkExpectedSigningKey(record: KeyBackupRecord, expected: Uint8Array | undefined): void {
  if (expected === undefined) return;
  if (!(expected instanceof Uint8Array) || expected.length !== 32) {
    throw new ValidationError({
      message: 'Option "expectedSigningPublicKey" must be a raw 32-byte key',
      issues: [{ path: ['expectedSigningPublicKey'], message: 'expected 32 bytes' }],
    });
  }
  if (!isFullKeyBackup(record)) {
    throw invalid(
      'The key backup has the minimal form (no signing key), but the user has a signing key: ' +
        'refused as a possible downgrade',
    );
  }
  if (!equalBytes(decoded(record.signing_public_key), expected)) {
    throw invalid('The key backup carries another signing_public_key than the expected one');
  }
}

function impliedParams(option: Argon2Params | undefined): Argon2Params {
  return parseArgon2Option(option ?? MINIMAL_FORM_ARGON2_PARAMS, 'minimalFormParams');
}

/**
 * Restores the private keys from a key backup record (as fetched from the
 * service, untrusted). The password is only fed to Argon2id.
 *
 * @param input - the record, in either form; checked here with {@link checkKeyBackupRecord}
 *   (unknown extra fields are dropped).
 * @param password - the protection password.
 * @throws {@link index!ValidationError | ValidationError} when `minimalFormParams` is malformed or above `ARGON2_PARAMS_MAX`.
 * @throws {@link index!CryptoError | CryptoError} `KEY_BACKUP_INVALID` (malformed or inconsistent record),
 *   `KEY_BACKUP_PARAMS_TOO_WEAK` (parameters below the floor),
 *   `KEY_BACKUP_PASSWORD_INVALID` (wrong password, or `backup_a`/`public_key` altered).
 * @example
 * ```ts
 * const restored = await restoreKeyBackup(record, protectionPassword);
 * if (restored.form === 'full') await store.save(KeyRing.create(restored.keys, Date.now()));
 * ```
 */
export async function restoreKeyBackup(
  input: unknown,
  password: string,
  options: RestoreKeyBackupOptions = {},
): Promise<RestoredKeyBackup> {
  const record = checkKeyBackupRecord(input);
  checkExpectedSigningKey(record, options.expectedSigningPublicKey);
  const full = isFullKeyBackup(record);
  const params = full ? record.argon2_params : impliedParams(options.minimalFormParams);
  assertArgon2Floor(params, options.minParams ?? ARGON2_PARAMS_FLOOR);
  // Backups are never created with an empty password (and hash-wasm refuses one), so it cannot be right.
  if (typeof password !== 'string' || password.length === 0) {
    throw new CryptoError({
      code: 'KEY_BACKUP_PASSWORD_INVALID',
      message: 'The protection password is wrong',
    });
  }
  const key = await deriveBackupKey(password, decoded(record.argon2_salt), params);
  const publicKey = decoded(record.public_key);
  const signingPublic = full ? decoded(record.signing_public_key) : undefined;
  const binding: BlobBinding = {
    form: full ? 'full' : 'minimal',
    publicKey,
    signingPublicKey: signingPublic,
  };
  const encPrivate = await openPrivateKey(key, BACKUP_KEY_ID.x25519, decoded(record.backup_a), binding);
  if (encPrivate === undefined) {
    throw new CryptoError({
      code: 'KEY_BACKUP_PASSWORD_INVALID',
      message: 'The protection password is wrong, or the key backup was altered',
    });
  }
  if (!full) {
    const { encryption } = keysFromPrivate(encPrivate, new Uint8Array(32));
    if (!equalBytes(encryption.publicKey, publicKey)) {
      encPrivate.fill(0);
      throw invalid('backup_a does not match public_key');
    }
    return { form: 'minimal', encryption, deviceId: record.device_id, params };
  }
  const sigPrivate = await openPrivateKey(key, BACKUP_KEY_ID.ed25519, decoded(record.backup_b), binding);
  if (sigPrivate === undefined) {
    encPrivate.fill(0);
    throw invalid('backup_b does not open with the key that opened backup_a');
  }
  const keys = keysFromPrivate(encPrivate, sigPrivate);
  const mismatch = !equalBytes(keys.encryption.publicKey, publicKey)
    ? 'backup_a does not match public_key'
    : !equalBytes(keys.signing.publicKey, signingPublic!)
      ? 'backup_b does not match signing_public_key'
      : undefined;
  if (mismatch !== undefined) {
    // Transient secrets that will not be returned: zero them (best effort, see docs/security.md).
    encPrivate.fill(0);
    sigPrivate.fill(0);
    throw invalid(mismatch);
  }
  return { form: 'full', keys, deviceId: record.device_id, params: { ...params } };
}
