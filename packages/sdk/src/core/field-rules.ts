/**
 * Field rules of the wire records, written without a schema library: the zod
 * protocol model (`core/protocol/`) refines with them, and the zod-free
 * webhook validator (`webhook/delivery.ts`) calls them directly, so both
 * accept exactly the same values. `test/unit/webhook/delivery-agreement.test.ts`
 * still runs both validators over generated bodies.
 *
 * @module
 */

export { isIsoUtcMillis } from './timestamps.js';

/** Longest identifier (conversation, sender, user, grant) in characters. */
export const IDENTIFIER_MAX_CHARS = 256;
/** Upper bound on an object key, in characters (not shown by the service; our bound). */
export const OBJECT_KEY_MAX_CHARS = 1024;
/** Longest `ref.content_type`, in characters. */
export const CONTENT_TYPE_MAX_CHARS = 255;

const MEDIA_TYPE =
  /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(\s*;.*)?$/;
const UNSAFE_KEY_CHAR = /[\s?#\\]/;

/** True when `text` contains a C0 or C1 control character or DEL. */
export function hasControlChar(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
}

/** An opaque service identifier: 1–256 characters, no control characters. */
export function isIdentifier(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= IDENTIFIER_MAX_CHARS &&
    !hasControlChar(value)
  );
}

/**
 * True when an object key is safe to append to `/r2/`: 1 to 1024 characters,
 * no control characters or whitespace, no `?`, `#` or `\`, no leading `/`,
 * no empty, `.` or `..` path segments (also when written with `%2e`).
 */
export function isSafeObjectKey(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > OBJECT_KEY_MAX_CHARS) return false;
  if (hasControlChar(value) || UNSAFE_KEY_CHAR.test(value)) return false;
  return value.split('/').every((seg) => {
    // URL parsing treats `%2e` as a dot in dot segments (`.%2e` resolves like `..`).
    const dots = seg.replace(/%2e/gi, '.');
    return seg !== '' && dots !== '.' && dots !== '..';
  });
}

/** A media type, `type/subtype` with optional parameters, at most 255 characters. */
export function isMediaType(value: unknown): value is string {
  return typeof value === 'string' && value.length <= CONTENT_TYPE_MAX_CHARS && MEDIA_TYPE.test(value);
}
