/**
 * The message payload: a JSON object such as `{ type: 'text', text: 'hi' }`,
 * carried as its UTF-8 JSON text inside the envelope.
 *
 * @module
 */
import * as z from '../core/lazy-zod.js';
import { fromUtf8, utf8 } from '../core/encoding.js';
import { ValidationError } from '../core/errors/index.js';
import type { SameType } from '../core/protocol/same-type.js';

/** Schema of an envelope payload: any JSON object (not an array, not null). */
export const EnvelopePayloadSchema = z.record(z.string(), z.unknown());
/**
 * An envelope payload: a JSON object, e.g. `{ type: 'text', text: 'hi' }`. Written out (not inferred) so
 * that the root entry's declarations name no zod type; checked against the schema.
 */
export type EnvelopePayload = Record<string, unknown>;
true satisfies SameType<z.output<typeof EnvelopePayloadSchema>, EnvelopePayload>;

function isObject(value: unknown): value is EnvelopePayload {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function notAnObject(): ValidationError {
  return new ValidationError({
    message: 'payload must be a JSON object',
    issues: [{ path: ['payload'], message: 'expected an object' }],
  });
}

/** The JSON text of a payload object. */
function payloadJson(payload: unknown): string {
  if (!isObject(payload)) throw notAnObject();
  let text: unknown;
  try {
    text = JSON.stringify(payload);
  } catch (cause) {
    throw new ValidationError({
      message: 'payload is not JSON-serialisable',
      issues: [{ path: ['payload'], message: 'JSON.stringify failed' }],
      cause,
    });
  }
  // A `toJSON` returning undefined makes JSON.stringify return undefined: nothing to send.
  if (typeof text !== 'string') throw notAnObject();
  return text;
}

/**
 * UTF-8 JSON bytes of a payload.
 *
 * @throws {@link ValidationError} when the payload is not a JSON-serialisable object.
 */
export function encodePayload(payload: unknown): Uint8Array {
  return utf8(payloadJson(payload));
}

/**
 * Plaintext that knows its UTF-8 length before it is written, so `seal` can
 * lay out the envelope first and write the plaintext straight into the place
 * of its ciphertext (no intermediate array of the payload's size).
 */
export interface PlaintextSource {
  readonly byteLength: number;
  /** Writes exactly `byteLength` bytes at `offset` of `out`. */
  writeTo(out: Uint8Array, offset: number): void;
}

interface NodeBufferView {
  toString(encoding: 'utf8' | 'latin1'): string;
  write(text: string, offset: number, length: number, encoding: 'utf8'): number;
}
interface BufferLike {
  from(data: ArrayBufferLike, byteOffset: number, length: number): NodeBufferView;
  byteLength(text: string, encoding: 'utf8'): number;
}
const NodeBuffer = (globalThis as { Buffer?: BufferLike }).Buffer;

/** A function of node:buffer (`isAscii`, `isUtf8`: native, SIMD) where the runtime has it. */
function nodeBufferCheck(name: 'isAscii' | 'isUtf8'): ((bytes: Uint8Array) => boolean) | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  try {
    const mod = proc?.getBuiltinModule?.('node:buffer') as Record<string, unknown> | undefined;
    const fn = mod?.[name];
    return typeof fn === 'function' ? (fn as (bytes: Uint8Array) => boolean) : undefined;
  } catch {
    return undefined;
  }
}
const isAscii = nodeBufferCheck('isAscii');
const nativeIsUtf8 = nodeBufferCheck('isUtf8');

/** From this length on, payload text is measured and written straight into the envelope. */
const DIRECT_WRITE_MIN_CHARS = 16 * 1024;

/** Plaintext of raw bytes, copied as they are. */
export function plaintextOfBytes(bytes: Uint8Array): PlaintextSource {
  return { byteLength: bytes.length, writeTo: (out, offset) => out.set(bytes, offset) };
}

/**
 * The payload's UTF-8 JSON as a {@link PlaintextSource}: serialised once; with
 * Buffer, measured and then encoded straight into the envelope.
 *
 * @throws {@link ValidationError} when the payload is not a JSON-serialisable object.
 */
export function payloadPlaintext(payload: unknown): PlaintextSource {
  const text = payloadJson(payload);
  // Short text: one TextEncoder call is cheaper than measuring and then writing.
  if (NodeBuffer === undefined || text.length < DIRECT_WRITE_MIN_CHARS) return plaintextOfBytes(utf8(text));
  const native = NodeBuffer;
  const byteLength = native.byteLength(text, 'utf8');
  return {
    byteLength,
    writeTo(out, offset) {
      native.from(out.buffer, out.byteOffset + offset, byteLength).write(text, 0, byteLength, 'utf8');
    },
  };
}

function isUtf8(bytes: Uint8Array): boolean {
  return nativeIsUtf8 !== undefined ? nativeIsUtf8(bytes) : fromUtf8(bytes) !== undefined;
}

const isJsonSpace = (b: number | undefined): boolean => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/**
 * Cheap checks of caller-supplied payload JSON bytes, without parsing them:
 * valid UTF-8, no byte order mark, and `{` and `}` as the first and last
 * characters that are not JSON whitespace.
 *
 * @throws {@link ValidationError} when the bytes fail one.
 */
export function checkPayloadJsonBytes(bytes: unknown): Uint8Array {
  const fail = (message: string): ValidationError =>
    new ValidationError({ message: `payloadJson ${message}`, issues: [{ path: ['payloadJson'], message }] });
  if (!(bytes instanceof Uint8Array)) throw fail('must be a Uint8Array');
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    throw fail('must not start with a byte order mark');
  }
  let start = 0;
  let end = bytes.length - 1;
  while (start < bytes.length && isJsonSpace(bytes[start])) start++;
  while (end > start && isJsonSpace(bytes[end])) end--;
  if (end <= start || bytes[start] !== 0x7b || bytes[end] !== 0x7d) {
    throw fail('must be the UTF-8 JSON text of an object ({…})');
  }
  if (!isUtf8(bytes)) throw fail('is not valid UTF-8');
  return bytes;
}

/**
 * Strict UTF-8 decoding. With Buffer, ASCII (checked natively) is decoded as
 * Latin-1, a plain copy (a third of the UTF-8 decoder's time at 1 MB);
 * otherwise the fast native decoder runs first; it
 * replaces invalid sequences with U+FFFD, so only text containing U+FFFD is
 * decoded again strictly to tell a real U+FFFD from invalid input.
 */
function decodeUtf8(bytes: Uint8Array): string | undefined {
  if (NodeBuffer === undefined) return fromUtf8(bytes);
  const view = NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isAscii?.(bytes) === true) return view.toString('latin1');
  const text = view.toString('utf8');
  return text.includes('\uFFFD') ? fromUtf8(bytes) : text;
}

/** The payload object of decrypted bytes, or `undefined` when they are not UTF-8 JSON of an object. */
export function decodePayload(bytes: Uint8Array): EnvelopePayload | undefined {
  // A byte order mark is not JSON; refuse it rather than strip it, so every decoder agrees.
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return undefined;
  const text = decodeUtf8(bytes);
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
