/**
 * Creating a key backup record: Argon2id(password, fresh 32-byte salt) →
 * AES-256-GCM key; each private key sealed in the layout of `layout.ts`.
 * The records are the core wire model's types (`KeyBackupFull`,
 * `KeyBackupMinimal`), ready for `POST /keys/backup`.
 *
 * @module
 */
import { toBase64 } from '../../core/encoding.js';
import { ValidationError } from '../../core/errors/validation-error.js';
import { keysFromPrivate, type AgentKeys, type KeyPair } from '../keys.js';
import { deriveBackupKey } from './kdf.js';
import { BACKUP_KEY_ID, equalBytes, sealPrivateKey } from './layout.js';
import {
  ARGON2_SALT_BYTES,
  DeviceIdSchema,
  type Argon2Params,
  type KeyBackupFull,
  type KeyBackupMinimal,
} from '../../core/protocol/key-backup.js';
import {
  ARGON2_PARAMS_FLOOR,
  DEFAULT_ARGON2_PARAMS,
  MINIMAL_FORM_ARGON2_PARAMS,
  assertArgon2Floor,
  parseArgon2Option,
} from './params.js';

/** Shortest protection password accepted when creating a backup, in characters. */
export const PROTECTION_PASSWORD_MIN_CHARS = 8;

/** Options of {@link createKeyBackup} and {@link createMinimalKeyBackup}. */
export interface CreateKeyBackupOptions {
  /** The hardware-unique device identifier (`device_id`): 1–256 characters, no control characters (the core `DeviceIdSchema`). */
  deviceId: string;
  /**
   * Argon2id cost; at most `ARGON2_PARAMS_MAX`. Only lower it in tests (together with `minParams`).
   * @defaultValue {@link DEFAULT_ARGON2_PARAMS} (full form), {@link MINIMAL_FORM_ARGON2_PARAMS} (minimal form)
   */
  params?: Argon2Params;
  /**
   * The floor `params` must reach. Only lower it in tests.
   * @defaultValue {@link ARGON2_PARAMS_FLOOR}
   */
  minParams?: Argon2Params;
}

function invalid(path: string, message: string): ValidationError {
  return new ValidationError({
    message: `Cannot create key backup: ${path} ${message}`,
    issues: [{ path: [path], message }],
  });
}

function checkPair(pair: KeyPair, path: string): void {
  // A spread copy of an SDK key pair has no privateKey (it is non-enumerable): a typed error, not a TypeError.
  if (!(pair.privateKey instanceof Uint8Array) || !(pair.publicKey instanceof Uint8Array))
    throw invalid(path, 'must hold 32-byte keys');
  if (pair.privateKey.length !== 32 || pair.publicKey.length !== 32)
    throw invalid(path, 'must hold 32-byte keys');
}

function resolveParams(options: CreateKeyBackupOptions, fallback: Argon2Params): Argon2Params {
  const deviceId = DeviceIdSchema.safeParse(options.deviceId);
  if (!deviceId.success) throw invalid('deviceId', deviceId.error.issues[0]?.message ?? 'is invalid');
  const params = parseArgon2Option(options.params ?? fallback, 'params');
  assertArgon2Floor(params, options.minParams ?? ARGON2_PARAMS_FLOOR);
  return params;
}

function checkPassword(password: string): void {
  // Count code points, not UTF-16 units, so a non-Latin password is not penalised.
  if (typeof password !== 'string' || [...password].length < PROTECTION_PASSWORD_MIN_CHARS) {
    throw invalid('password', `must have at least ${PROTECTION_PASSWORD_MIN_CHARS} characters`);
  }
}

function checkKeys(keys: AgentKeys): void {
  checkPair(keys.encryption, 'keys.encryption');
  checkPair(keys.signing, 'keys.signing');
  const derived = keysFromPrivate(keys.encryption.privateKey, keys.signing.privateKey);
  if (!equalBytes(derived.encryption.publicKey, keys.encryption.publicKey)) {
    throw invalid('keys.encryption', 'public key does not match the private key');
  }
  if (!equalBytes(derived.signing.publicKey, keys.signing.publicKey)) {
    throw invalid('keys.signing', 'public key does not match the private key');
  }
}

/**
 * Creates the full key backup record (both key pairs) for `POST /keys/backup`.
 * The password stays in this function: only the salt, the parameters and the
 * sealed keys are in the record.
 *
 * @param keys - the agent's X25519 and Ed25519 key pairs.
 * @param password - the protection password (not the account password); at least 8 characters.
 * @throws {@link index!ValidationError | ValidationError} when the password, `deviceId`, `params` (malformed or above
 *   `ARGON2_PARAMS_MAX`) or the key pairs are malformed.
 * @throws {@link index!CryptoError | CryptoError} `KEY_BACKUP_PARAMS_TOO_WEAK` when `params` are below `minParams`.
 * @example
 * ```ts
 * const record = await createKeyBackup(generateKeys(), protectionPassword, { deviceId });
 * await rest.post('/keys/backup', record);
 * ```
 */
export async function createKeyBackup(
  keys: AgentKeys,
  password: string,
  options: CreateKeyBackupOptions,
): Promise<KeyBackupFull> {
  checkPassword(password);
  const params = resolveParams(options, DEFAULT_ARGON2_PARAMS);
  checkKeys(keys);
  const salt = globalThis.crypto.getRandomValues(new Uint8Array(ARGON2_SALT_BYTES));
  const key = await deriveBackupKey(password, salt, params);
  const { encryption, signing } = keys;
  // Both blobs are bound to the full form and both public keys (layout.ts, version 2).
  const binding = {
    form: 'full',
    publicKey: encryption.publicKey,
    signingPublicKey: signing.publicKey,
  } as const;
  const backupA = await sealPrivateKey(key, BACKUP_KEY_ID.x25519, encryption.privateKey, binding);
  const backupB = await sealPrivateKey(key, BACKUP_KEY_ID.ed25519, signing.privateKey, binding);
  return {
    backup_a: toBase64(backupA),
    backup_b: toBase64(backupB),
    argon2_salt: toBase64(salt),
    argon2_params: { m: params.m, t: params.t, p: params.p },
    public_key: toBase64(encryption.publicKey),
    signing_public_key: toBase64(signing.publicKey),
    device_id: options.deviceId,
  };
}

/**
 * Creates the minimal key backup record: the X25519 pair only, under the
 * implied {@link MINIMAL_FORM_ARGON2_PARAMS} (not written in the record, so
 * whoever restores must use the same `params`).
 *
 * @param encryption - the agent's X25519 key pair.
 * @param password - the protection password; at least 8 characters.
 * @throws {@link index!ValidationError | ValidationError} when the password, `deviceId`, `params` (malformed or above
 *   `ARGON2_PARAMS_MAX`) or the key pair are malformed.
 * @throws {@link index!CryptoError | CryptoError} `KEY_BACKUP_PARAMS_TOO_WEAK` when `params` are below `minParams`.
 * @example
 * ```ts
 * const record = await createMinimalKeyBackup(keys.encryption, protectionPassword, { deviceId });
 * ```
 */
export async function createMinimalKeyBackup(
  encryption: KeyPair,
  password: string,
  options: CreateKeyBackupOptions,
): Promise<KeyBackupMinimal> {
  checkPassword(password);
  const params = resolveParams(options, MINIMAL_FORM_ARGON2_PARAMS);
  checkPair(encryption, 'encryption');
  // keysFromPrivate needs a signing seed too; a throwaway one is fine, only the X25519 half is used.
  const derived = keysFromPrivate(encryption.privateKey, new Uint8Array(32));
  if (!equalBytes(derived.encryption.publicKey, encryption.publicKey)) {
    throw invalid('encryption', 'public key does not match the private key');
  }
  const salt = globalThis.crypto.getRandomValues(new Uint8Array(ARGON2_SALT_BYTES));
  const key = await deriveBackupKey(password, salt, params);
  const binding = { form: 'minimal', publicKey: encryption.publicKey, signingPublicKey: undefined } as const;
  const backupA = await sealPrivateKey(key, BACKUP_KEY_ID.x25519, encryption.privateKey, binding);
  return {
    backup_a: toBase64(backupA),
    argon2_salt: toBase64(salt),
    public_key: toBase64(encryption.publicKey),
    device_id: options.deviceId,
  };
}
