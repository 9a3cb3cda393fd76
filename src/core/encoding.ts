/**
 * Strict base64 and UTF-8 helpers on Web-standard APIs only.
 *
 * `fromBase64` accepts standard base64 with padding (the service's wire form)
 * and rejects anything else, so malformed input fails loudly instead of
 * decoding to surprising bytes.
 *
 * @module
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const LOOKUP = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) LOOKUP[ALPHABET.charCodeAt(i)] = i;

// Where the runtime offers Buffer (Node, Bun, Deno's node compat) its native
// base64 is an order of magnitude faster; the portable loop below is the fallback.
interface BufferLike {
  from(data: ArrayBufferLike, byteOffset: number, length: number): { toString(encoding: 'base64'): string };
}
const NodeBuffer: BufferLike | undefined = (globalThis as { Buffer?: BufferLike }).Buffer;

/** Encodes bytes as standard, padded base64. */
export function toBase64(bytes: Uint8Array): string {
  if (NodeBuffer !== undefined)
    return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('base64');
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out +=
      ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + ALPHABET[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]! + '==';
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + '=';
  }
  return out;
}

/** True when `text` is canonical, padded, standard base64. */
export function isBase64(text: string): boolean {
  if (text.length % 4 !== 0) return false;
  return /^[A-Za-z0-9+/]*={0,2}$/.test(text) && canonical(text);
}

function canonical(text: string): boolean {
  // The unused low bits of the last symbol must be zero, so each byte string has one encoding.
  if (text.endsWith('==')) return (LOOKUP[text.charCodeAt(text.length - 3)]! & 15) === 0;
  if (text.endsWith('=')) return (LOOKUP[text.charCodeAt(text.length - 2)]! & 3) === 0;
  return true;
}

/**
 * Decodes standard, padded, canonical base64. Returns `undefined` for anything
 * else (wrong alphabet, missing padding, whitespace, non-canonical bits).
 */
export function fromBase64(text: string): Uint8Array | undefined {
  if (!isBase64(text)) return undefined;
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const a = LOOKUP[text.charCodeAt(i)]!;
    const b = LOOKUP[text.charCodeAt(i + 1)]!;
    const c = text[i + 2] === '=' ? 0 : LOOKUP[text.charCodeAt(i + 2)]!;
    const d = text[i + 3] === '=' ? 0 : LOOKUP[text.charCodeAt(i + 3)]!;
    const n = (a << 18) | (b << 12) | (c << 6) | d;
    if (o < out.length) out[o++] = (n >> 16) & 255;
    if (o < out.length) out[o++] = (n >> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  return out;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Decodes UTF-8, returning `undefined` for invalid sequences. */
export function fromUtf8(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Concatenates byte arrays. */
export function concatBytes(...parts: readonly Uint8Array[]): Uint8Array {
  let len = 0;
  for (const p of parts) len += p.length;
  const out = new Uint8Array(len);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}
