/**
 * Hex helpers for 32-byte HMAC-SHA256 values, on Web-standard APIs only.
 *
 * @module
 */

const HEX = '0123456789abcdef';

const HEX_DIGITS = /^[0-9a-fA-F]*$/;

/** True when `text` is exactly `2 * bytes` hex digits, in either case. */
export function isHex(text: string, bytes: number): boolean {
  return text.length === bytes * 2 && HEX_DIGITS.test(text);
}

function nibble(c: number): number {
  if (c <= 57) return c - 48;
  return (c | 32) - 87;
}

/** Decodes hex that passed {@link isHex}. */
export function hexToBytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length >>> 1);
  for (let i = 0; i < out.length; i++) {
    out[i] = (nibble(text.charCodeAt(2 * i)) << 4) | nibble(text.charCodeAt(2 * i + 1));
  }
  return out;
}

/** Lower-case hex of `bytes`. */
export function bytesToHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    out += HEX[b >>> 4]! + HEX[b & 15]!;
  }
  return out;
}
