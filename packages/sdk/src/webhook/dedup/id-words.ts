/**
 * Turns a delivery id into four 32-bit words (128 bits) for compact storage.
 *
 * A UUID (any version, either case) maps exactly to its 16 bytes. Any other
 * string is hashed to 128 bits with four independently seeded lanes: ids are
 * signed by the service, so nobody can search for collisions, and an
 * accidental one among 10^6 ids has probability ~10^-27.
 *
 * @module
 */
import { hexDigitValue } from '../hex.js';

function parseUuid(id: string, out: Uint32Array): boolean {
  if (id.length !== 36) return false;
  let word = 0;
  let w = 0;
  let digits = 0;
  for (let i = 0; i < 36; i++) {
    const c = id.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return false;
      continue;
    }
    const v = hexDigitValue(c);
    if (v < 0) return false;
    word = (word << 4) | v;
    if (++digits === 8) {
      out[w++] = word >>> 0;
      word = 0;
      digits = 0;
    }
  }
  return true;
}

function hashString(id: string, out: Uint32Array): void {
  // cyrb128-style: four lanes mixed with different multipliers, then cross-mixed.
  let h1 = 1779033703 ^ id.length;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < id.length; i++) {
    const k = id.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  out[0] = h1 >>> 0;
  out[1] = h2 >>> 0;
  out[2] = h3 >>> 0;
  out[3] = h4 >>> 0;
}

/** Writes the 128-bit form of `id` into `out[0..3]`. */
export function idToWords(id: string, out: Uint32Array): void {
  if (!parseUuid(id, out)) hashString(id, out);
}

/** A 32-bit table hash of four words (murmur3 finaliser over their mix). */
export function hashWords(a: number, b: number, c: number, d: number): number {
  let h = a ^ Math.imul(b, 0x9e3779b1) ^ Math.imul(c, 0x85ebca77) ^ Math.imul(d, 0xc2b2ae3d);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
