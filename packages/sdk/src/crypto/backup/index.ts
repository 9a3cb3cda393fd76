/**
 * Key backup: the service's key backup record, created from the agent's key
 * pairs and a protection password (Argon2id → AES-256-GCM), and restored
 * from it. See docs/key-backup.md for the byte layout and the choices made.
 *
 * The record's shape and types (`KeyBackupRecord`, `KeyBackupFull`,
 * `KeyBackupMinimal`, `Argon2Params`, their schemas and
 * `parseKeyBackupRecord`) live in the core protocol model and are exported
 * from the package root only; this barrel exports crypto's own parts.
 *
 * @module
 */
export {
  ARGON2_PARAMS_FLOOR,
  ARGON2_PARAMS_MAX,
  DEFAULT_ARGON2_PARAMS,
  MINIMAL_FORM_ARGON2_PARAMS,
} from './params.js';
export {
  BACKUP_BLOB_BYTES,
  BACKUP_BLOB_V1_BYTES,
  BACKUP_BLOB_VERSION,
  BACKUP_BLOB_VERSION_V1,
  BACKUP_FORM,
  BACKUP_KEY_ID,
  type BackupForm,
  type BackupKeyId,
} from './layout.js';
export { checkKeyBackupRecord } from './check.js';
export {
  PROTECTION_PASSWORD_MIN_CHARS,
  createKeyBackup,
  createMinimalKeyBackup,
  type CreateKeyBackupOptions,
} from './create.js';
export {
  restoreKeyBackup,
  type RestoreKeyBackupOptions,
  type RestoredFullKeyBackup,
  type RestoredKeyBackup,
  type RestoredMinimalKeyBackup,
} from './restore.js';
