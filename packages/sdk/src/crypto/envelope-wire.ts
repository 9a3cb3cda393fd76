/**
 * Turning what arrives (a `wire_envelope` base64 string, or the bytes of an
 * object fetched through `ref`) into raw envelope bytes, under a size cap.
 *
 * @module
 */
import { fromBase64, fromUtf8, toBase64 } from '../core/encoding.js';
import { LIMITS } from '../core/limits.js';
import { invalidEnvelope } from './envelope-errors.js';
import { ENVELOPE_MAGIC } from './envelope-format.js';

/**
 * Default cap of `open`: an inline `wire_envelope` can never exceed the 1 MB
 * webhook body, so anything longer is rejected before it is decoded.
 */
export const ENVELOPE_INLINE_MAX_BYTES: number = LIMITS.WEBHOOK_BODY_MAX_BYTES;

/**
 * Cap for envelopes delivered by `ref` (object store), and the default cap of
 * `seal`: 16 MiB. Pass it as `maxEnvelopeBytes` when opening a fetched object.
 */
export const ENVELOPE_REF_MAX_BYTES = 16 * 1_048_576;

interface NativeBuffer {
  write(text: string, offset: number, length: number, encoding: 'base64'): number;
}
interface BufferLike {
  from(text: string, encoding: 'base64'): Uint8Array;
  from(data: ArrayBufferLike, byteOffset: number, length: number): NativeBuffer;
  byteLength(text: string, encoding: 'utf8'): number;
}
const NodeBuffer = (globalThis as { Buffer?: BufferLike }).Buffer;
const SYMBOL = /[A-Za-z0-9+/]/;
const LOW_BITS: Record<number, number> = { 1: 3, 2: 15 };

/** True when the last data symbol before `pad` padding characters has its unused low bits clear. */
function canonicalTail(text: string, pad: number): boolean {
  if (pad === 0) return true;
  const last = text[text.length - pad - 1] ?? '';
  if (!SYMBOL.test(last)) return false;
  const value = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.indexOf(last);
  return (value & LOW_BITS[pad]!) === 0;
}

/**
 * The number of bytes `text` decodes to if it is strict base64, judged by
 * what needs no decoding: a length that is a multiple of 4, no base64url
 * symbol, a canonical end, only ASCII. `undefined` when one of these fails.
 */
function announcedLength(text: string, native: BufferLike): number | undefined {
  if (text.length % 4 !== 0) return undefined;
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  if (text.includes('-') || text.includes('_') || !canonicalTail(text, pad)) return undefined;
  if (native.byteLength(text, 'utf8') !== text.length) return undefined;
  return (text.length / 4) * 3 - pad;
}

/** Where decoded bytes go: a function returning a writable array of exactly `size` bytes. */
export type ByteAllocator = (size: number) => Uint8Array;

/**
 * Strict base64 (standard alphabet, padded, canonical). Where the runtime has a
 * native decoder (Buffer) it is used, and strictness is proved without a second
 * pass over the data: the native decoder skips any character outside its
 * alphabets, so a string is valid exactly when it decodes to the length its
 * padding announces, contains no base64url symbol and ends canonically —
 * and holds only ASCII (its UTF-8 length is its length): the decoder reads
 * only the low byte of a wider character, so `\u0141` would pass as `A`.
 *
 * @param into - where to decode (e.g. a reused scratch buffer, see `scratch.ts`): with
 * Buffer the bytes are written straight into it, with no allocation of the input's size.
 */
export function decodeBase64Strict(text: string, into?: ByteAllocator): Uint8Array | undefined {
  if (NodeBuffer === undefined) {
    const decoded = fromBase64(text);
    if (decoded === undefined || into === undefined) return decoded;
    const out = into(decoded.length);
    out.set(decoded);
    return out;
  }
  const size = announcedLength(text, NodeBuffer);
  if (size === undefined) return undefined;
  if (into === undefined) {
    const bytes = NodeBuffer.from(text, 'base64');
    if (bytes.length !== size) return undefined;
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  const out = into(size);
  const written = NodeBuffer.from(out.buffer, out.byteOffset, out.byteLength).write(text, 0, size, 'base64');
  return written === size ? out : undefined;
}

function startsWithMagic(bytes: Uint8Array): boolean {
  return ENVELOPE_MAGIC.every((b, i) => bytes[i] === b);
}

/**
 * Raw envelope bytes from a base64 string, or from bytes that are either the
 * raw envelope (they start with `AMSE`) or its base64 text.
 *
 * @param maxBytes - cap on the input as received (characters or bytes).
 * @param into - where base64 input is decoded (raw envelope bytes are returned as they are).
 * @throws {@link CryptoError} `INVALID_ENVELOPE` when too large, not base64 or of the wrong type.
 */
export function decodeEnvelopeInput(input: unknown, maxBytes: number, into?: ByteAllocator): Uint8Array {
  if (typeof input === 'string') {
    if (input.length > maxBytes) throw invalidEnvelope('larger than the allowed maximum');
    const bytes = decodeBase64Strict(input, into);
    if (bytes === undefined) throw invalidEnvelope('not canonical base64');
    return bytes;
  }
  if (input instanceof Uint8Array) {
    if (input.length > maxBytes) throw invalidEnvelope('larger than the allowed maximum');
    if (startsWithMagic(input)) return input;
    const text = fromUtf8(input);
    const bytes = text === undefined ? undefined : decodeBase64Strict(text, into);
    if (bytes === undefined) throw invalidEnvelope('neither envelope bytes nor base64 text');
    return bytes;
  }
  throw invalidEnvelope('expected a base64 string or bytes');
}

/** The `wire_envelope` string of raw envelope bytes. */
export function encodeWireEnvelope(bytes: Uint8Array): string {
  return toBase64(bytes);
}
