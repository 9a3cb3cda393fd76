/**
 * The key backup record a client uploads with `POST /keys/backup`, in its two
 * forms: the minimal form (X25519 key only) and the full form (both key pairs
 * plus the Argon2id parameters).
 *
 * This module is the SDK's single model of the record: the crypto entry's
 * `createKeyBackup` returns these types and its `checkKeyBackupRecord`
 * validates with these schemas (after picking the known fields, since a
 * record read back from the service may carry more).
 *
 * Both forms are strict objects: an upload is written by a client, so an
 * unknown field is a bug rather than a newer service. The crypto engineer
 * decides which Argon2id parameters are strong enough
 * (`KEY_BACKUP_PARAMS_TOO_WEAK`); this model only checks structural bounds.
 *
 * @module
 */
import * as z from '../lazy-zod.js';
import { hasAnyOwn, parseWith } from './parse.js';
import { base64Schema, IdentifierSchema } from './primitives.js';
import type { SameType } from './same-type.js';

/** Bytes of an Argon2id salt. */
export const ARGON2_SALT_BYTES = 32;
/** Bytes of an X25519 or Ed25519 public key. */
export const PUBLIC_KEY_BYTES = 32;
/** Upper bound on an encrypted private-key blob, in base64 characters (a 32-byte key plus framing is far smaller). */
export const KEY_BACKUP_BLOB_MAX_CHARS = 4096;

/**
 * Structural bounds of the Argon2id parameters (`m` in KiB). Argon2 itself
 * requires `m ≥ 8·p`; the upper bounds stop an upload from making a
 * restoring client allocate 4 GiB or loop for hours.
 */
export const ARGON2_PARAM_BOUNDS = Object.freeze({
  m: { min: 8, max: 4_194_304 },
  t: { min: 1, max: 100 },
  p: { min: 1, max: 64 },
} as const);

/** Argon2id parameters: memory `m` (KiB), iterations `t`, parallelism `p`. */
export const Argon2ParamsSchema = z
  .strictObject({
    m: z.int().min(ARGON2_PARAM_BOUNDS.m.min).max(ARGON2_PARAM_BOUNDS.m.max),
    t: z.int().min(ARGON2_PARAM_BOUNDS.t.min).max(ARGON2_PARAM_BOUNDS.t.max),
    p: z.int().min(ARGON2_PARAM_BOUNDS.p.min).max(ARGON2_PARAM_BOUNDS.p.max),
  })
  .refine((v) => v.m >= 8 * v.p, { message: 'm must be at least 8 × p (Argon2 requirement)', path: ['m'] });
/** Argon2id parameters (wire field names). */
export type Argon2Params = { m: number; t: number; p: number };
true satisfies SameType<z.output<typeof Argon2ParamsSchema>, Argon2Params>;

/**
 * The hardware-unique device identifier uploaded with the key backup: 1 to
 * 256 characters, no C0/C1 control characters or DEL (the service does not
 * show its format). The one `device_id` rule of the SDK: the crypto entry's
 * backup functions use it too.
 */
export const DeviceIdSchema = IdentifierSchema;
/** A device identifier. */
export type DeviceId = z.output<typeof DeviceIdSchema>;

// The length is checked first and stops the parse, so a hostile megabyte string is never decoded.
const boundedBase64 = (maxChars: number, options: { bytes?: number; minBytes?: number }) =>
  z.string().max(maxChars, { abort: true }).pipe(base64Schema(options));
const encryptedKey = () => boundedBase64(KEY_BACKUP_BLOB_MAX_CHARS, { minBytes: 1 });
/** Padded base64 of exactly `bytes` bytes (at most 4·⌈bytes/3⌉ characters). */
const exactBase64 = (bytes: number) => boundedBase64(4 * Math.ceil(bytes / 3), { bytes });
const publicKey = () => exactBase64(PUBLIC_KEY_BYTES);

const minimalShape = {
  /** X25519 private key, encrypted under the Argon2id-derived key. */
  backup_a: encryptedKey(),
  /** 32 random bytes. */
  argon2_salt: exactBase64(ARGON2_SALT_BYTES),
  /** X25519 public key, 32 bytes. */
  public_key: publicKey(),
  /** Hardware-unique device identifier. */
  device_id: DeviceIdSchema,
};

/** The minimal upload form: fields present in every form. */
export const KeyBackupMinimalSchema = z.strictObject(minimalShape);
/** The minimal key backup upload. */
export type KeyBackupMinimal = z.output<typeof KeyBackupMinimalSchema>;

/** The full upload form: both key pairs and the Argon2id parameters. */
export const KeyBackupFullSchema = z.strictObject({
  ...minimalShape,
  /** Ed25519 private key, encrypted the same way as `backup_a`. */
  backup_b: encryptedKey(),
  argon2_params: Argon2ParamsSchema,
  /** Ed25519 public key, 32 bytes. */
  signing_public_key: publicKey(),
});
/** The full key backup upload. */
export type KeyBackupFull = z.output<typeof KeyBackupFullSchema>;

/** Either upload form. Prefer {@link parseKeyBackupRecord}, which reports issues of the intended form. */
export const KeyBackupRecordSchema = z.union([KeyBackupFullSchema, KeyBackupMinimalSchema]);
/** A key backup record in either form. */
export type KeyBackupRecord = z.output<typeof KeyBackupRecordSchema>;

const FULL_ONLY = ['backup_b', 'argon2_params', 'signing_public_key'] as const;

/** True when the record is the full form. */
export function isFullKeyBackup(record: KeyBackupRecord): record is KeyBackupFull {
  return 'backup_b' in record;
}

/**
 * Validates a key backup upload. A body with any full-form field is checked
 * as the full form (so a half-full upload reports the missing fields);
 * otherwise as the minimal form.
 *
 * @throws {@link ValidationError} with the issues (paths and reasons, never values).
 * @example
 * ```ts
 * const record = parseKeyBackupRecord(await request.json());
 * if (isFullKeyBackup(record)) storeSigningKey(record.signing_public_key);
 * ```
 */
export function parseKeyBackupRecord(input: unknown): KeyBackupRecord {
  return hasAnyOwn(input, FULL_ONLY)
    ? parseWith(KeyBackupFullSchema, input, 'key backup record')
    : parseWith(KeyBackupMinimalSchema, input, 'key backup record');
}
