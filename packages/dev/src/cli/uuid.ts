/**
 * UUID v7 for test deliveries (RFC 9562): 48 bits of Unix milliseconds, the
 * version 7, the variant `10`, and 74 random bits.
 *
 * @module
 */

/**
 * Makes a UUID v7 for the time `nowMs`.
 *
 * @param random - fills a buffer with random bytes. @defaultValue `crypto.getRandomValues`
 * @example
 * ```ts
 * uuidV7(Date.now()); // '019b7a1c-3e00-7c4d-9a2b-5f1e2d3c4b5a'
 * ```
 */
export function uuidV7(
  nowMs: number,
  random: (bytes: Uint8Array) => Uint8Array = (b) => globalThis.crypto.getRandomValues(b),
): string {
  const bytes = random(new Uint8Array(16));
  let ms = Math.max(0, Math.floor(nowMs));
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = 0x70 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
