/**
 * The service's key backup record (`POST /keys/backup`) in its two upload
 * forms, with strict parsing.
 *
 * - Full form: all seven fields; carries both key pairs and its own Argon2id
 *   parameters.
 * - Minimal form: `backup_a`, `argon2_salt`, `public_key`, `device_id` only;
 *   carries the X25519 pair alone and implies
 *   {@link MINIMAL_FORM_ARGON2_PARAMS}.
 *
 * A record holding some but not all of the full-form fields is invalid.
 * Unknown extra fields are ignored and dropped.
 *
 * @module
 */
import { z } from 'zod';
import { CryptoError } from '../../core/errors/crypto-error.js';
import { fromBase64 } from '../../core/encoding.js';
import { ARGON2_SALT_BYTES, Argon2ParamsSchema } from './params.js';
import { BACKUP_KEY_ID, hasBackupHeader, type BackupKeyId } from './layout.js';

/** Longest `device_id` accepted, in UTF-16 code units. */
export const DEVICE_ID_MAX_CHARS = 256;

// Bounded before decoding so a hostile record cannot make us decode megabytes.
const MAX_BASE64_CHARS = 128;

function base64OfBytes(bytes: number) {
  return z
    .string()
    .max(MAX_BASE64_CHARS)
    .refine((s) => fromBase64(s)?.length === bytes, {
      message: `must be padded base64 of exactly ${bytes} bytes`,
    });
}

function sealedKey(keyId: BackupKeyId) {
  return z
    .string()
    .max(MAX_BASE64_CHARS)
    .refine(
      (s) => {
        const blob = fromBase64(s);
        return blob !== undefined && hasBackupHeader(blob, keyId);
      },
      {
        message: `must be padded base64 of a sealed ${keyId === BACKUP_KEY_ID.x25519 ? 'X25519' : 'Ed25519'} key`,
      },
    );
}

/** `device_id`: 1 to 256 characters, no control characters. */
export const DeviceIdSchema = z
  .string()
  .min(1)
  .max(DEVICE_ID_MAX_CHARS)
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f]+$/, { message: 'must not contain control characters' });

const common = {
  backup_a: sealedKey(BACKUP_KEY_ID.x25519),
  argon2_salt: base64OfBytes(ARGON2_SALT_BYTES),
  public_key: base64OfBytes(32),
  device_id: DeviceIdSchema,
};

const FULL_FORM_KEYS = ['backup_b', 'argon2_params', 'signing_public_key'] as const;

function hasFullFormKey(input: unknown): boolean {
  return typeof input === 'object' && input !== null && FULL_FORM_KEYS.some((k) => k in input);
}

/** The full upload form: both key pairs and their Argon2id parameters. */
export const FullKeyBackupRecordSchema = z.object({
  ...common,
  backup_b: sealedKey(BACKUP_KEY_ID.ed25519),
  argon2_params: Argon2ParamsSchema,
  signing_public_key: base64OfBytes(32),
});
/** A key backup record in the full form. */
export type FullKeyBackupRecord = z.infer<typeof FullKeyBackupRecordSchema>;

/** The minimal upload form: the X25519 pair only; Argon2id parameters are implied. */
export const MinimalKeyBackupRecordSchema = z.preprocess((input, ctx) => {
  if (hasFullFormKey(input)) {
    ctx.addIssue({ code: 'custom', message: `the minimal form has none of ${FULL_FORM_KEYS.join(', ')}` });
  }
  return input;
}, z.object(common));
/** A key backup record in the minimal form. */
export type MinimalKeyBackupRecord = z.infer<typeof MinimalKeyBackupRecordSchema>;

/** A key backup record in either upload form (wire field names). */
export const KeyBackupRecordSchema = z.union([FullKeyBackupRecordSchema, MinimalKeyBackupRecordSchema]);
/** A key backup record in either upload form. */
export type KeyBackupRecord = FullKeyBackupRecord | MinimalKeyBackupRecord;

/** True when `record` is in the full form. */
export function isFullKeyBackupRecord(record: KeyBackupRecord): record is FullKeyBackupRecord {
  return 'backup_b' in record;
}

/**
 * Checks an untrusted value (a record from the service, a file) and returns
 * it as a {@link KeyBackupRecord}. Any full-form field selects the full form,
 * which then needs all of them.
 *
 * Parameters below the floor pass here; {@link restoreKeyBackup} refuses them.
 *
 * @throws {@link CryptoError} `KEY_BACKUP_INVALID`, naming the bad fields (never their values).
 * @example
 * ```ts
 * const record = parseKeyBackupRecord(JSON.parse(text));
 * ```
 */
export function parseKeyBackupRecord(input: unknown): KeyBackupRecord {
  const schema = hasFullFormKey(input) ? FullKeyBackupRecordSchema : MinimalKeyBackupRecordSchema;
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => `${i.path.join('.') || '(record)'}: ${i.message}`);
  throw new CryptoError({
    code: 'KEY_BACKUP_INVALID',
    message: `Key backup record is invalid: ${issues.slice(0, 5).join('; ')}`,
  });
}
