/**
 * The object reference `ref` of an oversize delivery: when a delivery body
 * would exceed 1 MB, the service stores the ciphertext as an object and the
 * receiver fetches `GET /r2/<object_key>` with its agent token.
 *
 * `object_key` is opaque, but the SDK puts it into a URL path, so keys that
 * could steer that request elsewhere are rejected (see {@link isSafeObjectKey}).
 *
 * @module
 */
import { z } from 'zod';
import { hasControlChar } from './primitives.js';

/** Upper bound on an object key, in characters (not shown by the service; our bound). */
export const OBJECT_KEY_MAX_CHARS = 1024;

/**
 * True when an object key is safe to append to `/r2/`: 1 to 1024 characters,
 * no control characters or whitespace, no `?`, `#` or `\`, no leading `/`,
 * no empty, `.` or `..` path segments.
 */
export function isSafeObjectKey(key: string): boolean {
  if (key.length === 0 || key.length > OBJECT_KEY_MAX_CHARS) return false;
  if (hasControlChar(key) || /[\s?#\\]/.test(key)) return false;
  return key.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..');
}

// A media type: type "/" subtype, optionally followed by parameters.
const MEDIA_TYPE =
  /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(\s*;.*)?$/;

/** The object reference of an oversize delivery. */
export const ObjectRefSchema = z.looseObject({
  /** Storage kind; V1 knows only `r2`. */
  type: z.literal('r2'),
  /** Opaque reference key. */
  object_key: z.string().refine(isSafeObjectKey, {
    message: 'Must be a relative object key without control characters, ?, #, \\ or dot segments',
  }),
  /** Size of the ciphertext, bytes. */
  size: z.int().min(0),
  /** Media type of the ciphertext. */
  content_type: z.string().max(255).regex(MEDIA_TYPE, { message: 'Must be a media type (type/subtype)' }),
});
/** An object reference (wire field names). */
export type ObjectRef = z.infer<typeof ObjectRefSchema>;
