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
import * as z from '../lazy-zod.js';
import {
  CONTENT_TYPE_MAX_CHARS,
  isMediaType,
  isSafeObjectKey,
  OBJECT_KEY_MAX_CHARS,
} from '../field-rules.js';

export { isSafeObjectKey, OBJECT_KEY_MAX_CHARS };

/** The object reference of an oversize delivery. */
export const ObjectRefSchema = z.looseObject({
  /** Storage kind; V1 knows only `r2`. */
  type: z.literal('r2'),
  /** Opaque reference key. */
  object_key: z.string().refine((key) => isSafeObjectKey(key), {
    message: 'Must be a relative object key without control characters, ?, #, \\ or dot segments',
  }),
  /** Size of the ciphertext, bytes. */
  size: z.int().min(0),
  /** Media type of the ciphertext. */
  content_type: z
    .string()
    .max(CONTENT_TYPE_MAX_CHARS)
    .refine((t) => isMediaType(t), { message: 'Must be a media type (type/subtype)' }),
});
/** An object reference (wire field names). */
export type ObjectRef = z.output<typeof ObjectRefSchema>;
