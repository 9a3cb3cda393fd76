/**
 * Key backup: the service's key backup record, created from the agent's key
 * pairs and a protection password (Argon2id → AES-256-GCM), and restored
 * from it. See docs/key-backup.md for the byte layout and the choices made.
 *
 * @module
 */
export {
  ARGON2_PARAMS_FLOOR,
  ARGON2_PARAMS_MAX,
  ARGON2_SALT_BYTES,
  Argon2ParamsSchema,
  DEFAULT_ARGON2_PARAMS,
  MINIMAL_FORM_ARGON2_PARAMS,
  type Argon2Params,
} from './params.js';
export { BACKUP_BLOB_BYTES, BACKUP_BLOB_VERSION, BACKUP_KEY_ID, type BackupKeyId } from './layout.js';
export {
  DEVICE_ID_MAX_CHARS,
  DeviceIdSchema,
  FullKeyBackupRecordSchema,
  KeyBackupRecordSchema,
  MinimalKeyBackupRecordSchema,
  isFullKeyBackupRecord,
  parseKeyBackupRecord,
  type FullKeyBackupRecord,
  type KeyBackupRecord,
  type MinimalKeyBackupRecord,
} from './record.js';
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
