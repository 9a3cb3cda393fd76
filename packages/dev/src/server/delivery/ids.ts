/**
 * Identifiers the delivery engine mints: UUID v7 delivery ids (time-ordered
 * on the engine's clock, RFC 9562 §5.7) and unguessable object keys.
 *
 * @module
 */

const HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * A UUID version 7 whose 48-bit timestamp is `nowMs` (the engine's clock) and
 * whose other 74 bits are random.
 *
 * @example
 * ```ts
 * uuidV7(Date.parse('2026-03-01T12:00:00Z')); // '0195523b-…-7…-[89ab]…'
 * ```
 */
export function uuidV7(nowMs: number): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  let ms = Math.max(0, Math.floor(nowMs));
  for (let i = 5; i >= 0; i--) {
    b[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  b[6] = 0x70 | (b[6]! & 0x0f);
  b[8] = 0x80 | (b[8]! & 0x3f);
  const h = Array.from(b, (x) => HEX[x]!).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Random bytes in an object key: 32 (256 bits), so keys cannot be guessed. */
export const OBJECT_KEY_RANDOM_BYTES = 32;

/**
 * A new object key: `obj_` + 43 base64url characters (256 random bits). Only
 * `A–Z a–z 0–9 _ -`, so it is safe in a URL path without escaping.
 */
export function newObjectKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(OBJECT_KEY_RANDOM_BYTES));
  let bin = '';
  for (const x of bytes) bin += String.fromCharCode(x);
  return 'obj_' + btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
