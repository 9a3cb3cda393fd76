/**
 * The user's key pairs: generated on the device at registration (step 3 of
 * the service's registration, no server call), backed up encrypted under
 * the protection password (step 4, `POST /keys/backup`), and restored from
 * that backup on a new device (`GET /keys/backup`).
 *
 * The protection password never leaves this module's functions: only the
 * Argon2id salt, parameters and the sealed private keys are uploaded.
 *
 * @module
 */
import { createKeyBackup } from '../crypto/backup/create.js';
import { restoreKeyBackup } from '../crypto/backup/restore.js';
import { KeyRing } from '../crypto/key-store/key-ring.js';
import { keyFingerprint, type AgentKeys, type KeyPair } from '../crypto/keys.js';
import { ConfigurationError } from '../core/errors/configuration-error.js';
import type { KeyBackupCostOptions } from './options.js';
import type { UserApi } from './user-api.js';

/** The user's keys in memory. The minimal backup form restores the X25519 pair only (receive-only). */
export interface UserKeySet {
  /** X25519 pair: opens messages. */
  readonly encryption: KeyPair;
  /** Ed25519 pair: signs sent messages; undefined after restoring a minimal-form backup. */
  readonly signing: KeyPair | undefined;
}

const costOf = (cost: KeyBackupCostOptions) => ({
  ...(cost.params === undefined ? {} : { params: cost.params }),
  ...(cost.minParams === undefined ? {} : { minParams: cost.minParams }),
});

/**
 * Encrypts `keys` under the protection password and uploads the full-form backup.
 *
 * @throws {@link ValidationError} for a protection password under 8 characters or bad cost options.
 * @throws {@link CryptoError} `KEY_BACKUP_PARAMS_TOO_WEAK` for `params` below `minParams`.
 * @throws {@link ServiceError} from the upload (e.g. `VALIDATION_ERROR` `device_mismatch`).
 */
export async function backUpKeys(
  api: UserApi,
  keys: AgentKeys,
  protectionPassword: string,
  deviceId: string,
  cost: KeyBackupCostOptions,
): Promise<void> {
  const record = await createKeyBackup(keys, protectionPassword, { deviceId, ...costOf(cost) });
  await api.uploadKeyBackup(record);
}

/**
 * Downloads the backup and decrypts it with the protection password.
 * With `expectedSigningPublicKey` (the user's known Ed25519 key), a
 * minimal-form backup or another signing key is refused (a possible downgrade).
 *
 * @throws {@link ServiceError} `KEY_BACKUP_NOT_FOUND` when the account has none.
 * @throws {@link CryptoError} `KEY_BACKUP_PASSWORD_INVALID`, `KEY_BACKUP_INVALID`, `KEY_BACKUP_PARAMS_TOO_WEAK`.
 */
export async function restoreKeys(
  api: UserApi,
  protectionPassword: string,
  cost: KeyBackupCostOptions,
  expectedSigningPublicKey?: Uint8Array,
): Promise<UserKeySet> {
  const record = await api.keyBackup();
  const restored = await restoreKeyBackup(record, protectionPassword, {
    ...(cost.minParams === undefined ? {} : { minParams: cost.minParams }),
    ...(expectedSigningPublicKey === undefined ? {} : { expectedSigningPublicKey }),
  });
  return restored.form === 'full'
    ? { encryption: restored.keys.encryption, signing: restored.keys.signing }
    : { encryption: restored.encryption, signing: undefined };
}

/** Fingerprint of the user's X25519 key (not secret). */
export function userKeyFingerprint(keys: UserKeySet): string {
  return keyFingerprint(keys.encryption.publicKey);
}

/**
 * A key ring of the user's keys, for the message sender.
 *
 * @throws {@link ConfigurationError} when there is no signing key (minimal-form backup).
 */
export function userKeyRing(keys: UserKeySet, nowMs: number): KeyRing {
  if (keys.signing === undefined) {
    throw new ConfigurationError({
      option: 'keys',
      message: 'This account has no signing key (minimal key backup): it can read but not send messages.',
    });
  }
  return KeyRing.create({ encryption: keys.encryption, signing: keys.signing }, nowMs);
}
