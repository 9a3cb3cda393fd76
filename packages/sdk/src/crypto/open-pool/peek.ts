/**
 * The sender id of an envelope, read from the first bytes of its header
 * without decoding the rest, so the calling thread can look the sender's key
 * up before handing the envelope to a worker. Unauthenticated: the worker
 * offers the key for this id only, and the signature check decides.
 *
 * @module
 */
import { fromUtf8 } from '../../core/encoding.js';
import { ENVELOPE_MAGIC, MAX_ID_BYTES, SIZES } from '../envelope-format.js';
import { decodeBase64Strict } from '../envelope-wire.js';

/** Base64 characters that cover the prefix, the length byte and the longest sender id (a multiple of 4). */
const PREFIX_CHARS = Math.ceil((SIZES.prefix + 1 + MAX_ID_BYTES) / 3) * 4;

function startsWithMagic(bytes: Uint8Array): boolean {
  return ENVELOPE_MAGIC.every((b, i) => bytes[i] === b);
}

function headBytes(input: string | Uint8Array): Uint8Array | undefined {
  if (typeof input === 'string') return decodeBase64Strict(input.slice(0, PREFIX_CHARS));
  if (startsWithMagic(input)) return input;
  const text = fromUtf8(input.subarray(0, PREFIX_CHARS));
  return text === undefined ? undefined : decodeBase64Strict(text);
}

/** The sender id an envelope names, or undefined when its first bytes are not a readable header. */
export function peekSenderId(input: string | Uint8Array): string | undefined {
  const head = headBytes(input);
  if (head === undefined || head.length <= SIZES.prefix || !startsWithMagic(head)) return undefined;
  const len = head[SIZES.prefix]!;
  if (len === 0 || head.length < SIZES.prefix + 1 + len) return undefined;
  return fromUtf8(head.subarray(SIZES.prefix + 1, SIZES.prefix + 1 + len));
}
