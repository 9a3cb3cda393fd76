/**
 * The `file` message payload: what a recipient needs to fetch, check and
 * decrypt an uploaded file. It travels inside an ordinary sealed envelope,
 * so the file key is only ever seen by the conversation's members; the
 * service stores the ciphertext and never sees this record.
 *
 * @module
 */
import * as z from '../lazy-zod.js';
import { FILE_MAX_BYTES } from '../limits/objects.js';
import {
  CONTENT_TYPE_MAX_CHARS,
  hasControlChar,
  isMediaType,
  isSafeObjectKey,
  OBJECT_KEY_MAX_CHARS,
} from '../field-rules.js';
import { parseWith } from './parse.js';
import type { SameType } from './same-type.js';
import { base64Schema } from './primitives.js';

/** The encryption format of {@link FilePayload}: `AMSF` v1 (see docs/files.md). */
export const FILE_FORMAT = 'amsf-v1';
/** Longest file name, in characters. */
export const FILE_NAME_MAX_CHARS = 255;

/** A file message (wire field names). */
export const FilePayloadSchema = z.looseObject({
  type: z.literal('file'),
  /** Encryption format of the object. */
  format: z.literal(FILE_FORMAT),
  /** Where the ciphertext is: fetched with `GET /r2/<object_key>`. */
  object_key: z
    .string()
    .max(OBJECT_KEY_MAX_CHARS)
    .refine((k) => isSafeObjectKey(k), {
      message: 'Must be a relative object key without control characters, ?, #, \\ or dot segments',
    }),
  /** The file's name as the sender gave it (a display name, never a path to trust). */
  name: z
    .string()
    .min(1)
    .max(FILE_NAME_MAX_CHARS)
    .refine((n) => !hasControlChar(n), { message: 'Must not contain control characters' }),
  /** Media type of the plaintext. */
  content_type: z
    .string()
    .max(CONTENT_TYPE_MAX_CHARS)
    .refine((t) => isMediaType(t), { message: 'Must be a media type (type/subtype)' }),
  /** Plaintext size, bytes. */
  size: z.int().min(0).max(FILE_MAX_BYTES),
  /** Plaintext bytes per chunk. */
  chunk_size: z
    .int()
    .min(16_384)
    .max(4 * 1_048_576),
  /** Ciphertext size, bytes (what `GET /r2/<object_key>` returns). */
  ciphertext_size: z.int().min(32),
  /** Lowercase hex SHA-256 of the ciphertext. */
  ciphertext_sha256: z.string().regex(/^[0-9a-f]{64}$/, { message: 'Must be 64 lowercase hex characters' }),
  /** The 32-byte file key, base64. */
  key: base64Schema({ bytes: 32 }),
});
/**
 * A file message payload (`type: 'file'`, wire field names): what a recipient
 * needs to fetch, check and decrypt the file. Pass it to `files.download()`.
 */
export interface FilePayload {
  type: 'file';
  /** Encryption format of the object. */
  format: typeof FILE_FORMAT;
  /** Where the ciphertext is: fetched with `GET /r2/<object_key>`. */
  object_key: string;
  /** The file's name as the sender gave it (a display name, never a path to trust). */
  name: string;
  /** Media type of the plaintext. */
  content_type: string;
  /** Plaintext size, bytes. */
  size: number;
  /** Plaintext bytes per chunk. */
  chunk_size: number;
  /** Ciphertext size, bytes. */
  ciphertext_size: number;
  /** Lowercase hex SHA-256 of the ciphertext. */
  ciphertext_sha256: string;
  /** The 32-byte file key, base64. */
  key: string;
  /** Fields of a newer format version, kept as-is. */
  [field: string]: unknown;
}
true satisfies SameType<z.output<typeof FilePayloadSchema>, FilePayload>;

/**
 * Validates a `file` payload.
 *
 * @throws {@link ValidationError} with the issues (paths and reasons, never values).
 */
export function parseFilePayload(input: unknown): FilePayload {
  return parseWith(FilePayloadSchema, input, 'file payload');
}
