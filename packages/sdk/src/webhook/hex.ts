/**
 * Hex helpers for 32-byte HMAC-SHA256 values and UUID digits, on Web-standard
 * APIs only.
 *
 * @module
 */

const HEX = '0123456789abcdef';

/** Value of each ASCII hex digit (either case); -1 for every other code unit below 128. */
const NIBBLE = /* @__PURE__ */ (() => {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < 16; i++) {
    table[HEX.charCodeAt(i)] = i;
    table[HEX.toUpperCase().charCodeAt(i)] = i;
  }
  return table;
})();

/** Value of the hex digit with char code `code` (either case), or -1 for any other code. */
export function hexDigitValue(code: number): number {
  return NIBBLE[code] ?? -1;
}

/**
 * Decodes `text` into `out` when it is exactly `2 * out.length` hex digits
 * (either case) and returns true; returns false for anything else (then the
 * content of `out` is unspecified). One pass: validating and decoding at once
 * is cheaper than a regular expression followed by a decoder.
 */
export function decodeHex(text: string, out: Uint8Array): boolean {
  if (text.length !== out.length * 2) return false;
  let bad = 0;
  for (let i = 0; i < out.length; i++) {
    const hi = NIBBLE[text.charCodeAt(2 * i)] ?? -1;
    const lo = NIBBLE[text.charCodeAt(2 * i + 1)] ?? -1;
    bad |= hi | lo; // -1 sets the sign bit and keeps it
    out[i] = (hi << 4) | lo;
  }
  return bad >= 0;
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
