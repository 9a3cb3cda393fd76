/**
 * The message payload: a JSON object such as `{ type: 'text', text: 'hi' }`,
 * carried as its UTF-8 JSON text inside the envelope.
 *
 * @module
 */
import { z } from 'zod';
import { fromUtf8, utf8 } from '../core/encoding.js';
import { ValidationError } from '../core/errors/index.js';

/** Schema of an envelope payload: any JSON object (not an array, not null). */
export const EnvelopePayloadSchema = z.record(z.string(), z.unknown());
/** An envelope payload: a JSON object, e.g. `{ type: 'text', text: 'hi' }`. */
export type EnvelopePayload = z.infer<typeof EnvelopePayloadSchema>;

function isObject(value: unknown): value is EnvelopePayload {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * UTF-8 JSON bytes of a payload.
 *
 * @throws {@link ValidationError} when the payload is not a JSON-serialisable object.
 */
export function encodePayload(payload: unknown): Uint8Array {
  if (!isObject(payload)) {
    throw new ValidationError({
      message: 'payload must be a JSON object',
      issues: [{ path: ['payload'], message: 'expected an object' }],
    });
  }
  let text: string;
  try {
    text = JSON.stringify(payload);
  } catch (cause) {
    throw new ValidationError({
      message: 'payload is not JSON-serialisable',
      issues: [{ path: ['payload'], message: 'JSON.stringify failed' }],
      cause,
    });
  }
  return utf8(text);
}

interface BufferLike {
  from(data: ArrayBufferLike, byteOffset: number, length: number): { toString(encoding: 'utf8'): string };
}
const NodeBuffer = (globalThis as { Buffer?: BufferLike }).Buffer;

/**
 * Strict UTF-8 decoding. With Buffer, the fast native decoder runs first; it
 * replaces invalid sequences with U+FFFD, so only text containing U+FFFD is
 * decoded again strictly to tell a real U+FFFD from invalid input.
 */
function decodeUtf8(bytes: Uint8Array): string | undefined {
  if (NodeBuffer === undefined) return fromUtf8(bytes);
  const text = NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
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
