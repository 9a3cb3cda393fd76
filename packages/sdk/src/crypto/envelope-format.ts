/**
 * Envelope v1 binary layout (v1.0 and v1.1): encoding and strict parsing.
 * Platform-neutral; no cryptography happens here. See docs/envelope.md for
 * the byte-by-byte specification.
 *
 * v1.1 differs from v1.0 in two places: the header carries the event type
 * after the message id, and a 32-byte key commitment follows the wraps.
 *
 * @module
 */
import { fromUtf8, utf8 } from '../core/encoding.js';
import { isIsoUtcMillis } from '../core/timestamps.js';
import { invalidEnvelope } from './envelope-errors.js';
import { FINGERPRINT_BYTES } from './keys.js';

/** First four bytes of every envelope: ASCII `AMSE`. */
export const ENVELOPE_MAGIC: Uint8Array = Uint8Array.of(0x41, 0x4d, 0x53, 0x45);
/** Envelope format version written by this SDK by default: v1.1 (key-committing, event type bound). */
export const ENVELOPE_VERSION = Object.freeze({ major: 1, minor: 1 });
/** The legacy format version still read (see `acceptLegacyV10`) and written on request: v1.0. */
export const LEGACY_ENVELOPE_VERSION = Object.freeze({ major: 1, minor: 0 });
/** A minor version this SDK reads and writes. */
export type EnvelopeMinorVersion = 0 | 1;
/** Cipher suite 1: X25519, HKDF-SHA256, AES-256-GCM, Ed25519 over SHA-256. */
export const ENVELOPE_SUITE = 1;
/** Most recipients one envelope may carry. */
export const MAX_RECIPIENTS = 1024;
/** Longest id (sender, conversation, message, recipient), in UTF-8 bytes. */
export const MAX_ID_BYTES = 255;

/** Fixed sizes of the layout, in bytes. */
export const SIZES = Object.freeze({
  prefix: 8,
  createdAt: 24,
  publicKey: 32,
  fingerprint: FINGERPRINT_BYTES,
  wrap: 48,
  nonce: 12,
  tag: 16,
  signature: 64,
  commitment: 32,
});

/** `created_at`: ISO 8601 UTC with milliseconds, always 24 characters. */
export const CREATED_AT_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** One recipient entry of the header. */
export interface RecipientEntry {
  readonly id: string;
  /** 8-byte fingerprint of the recipient's X25519 public key. */
  readonly fingerprint: Uint8Array;
}

/** The signed, authenticated header fields. */
export interface EnvelopeHeader {
  readonly senderId: string;
  readonly conversationId: string;
  readonly messageId: string;
  /**
   * v1.1 only: the event type the sender sealed the payload as (e.g. `message.new`).
   * Present exactly when the header is v1.1; `encodeHeader` writes v1.1 when it is set.
   */
  readonly eventType?: string | undefined;
  readonly createdAt: string;
  readonly ephemeralPublicKey: Uint8Array;
  readonly recipients: readonly RecipientEntry[];
}

/** An envelope split into its parts; every array is a view into the input. */
export interface ParsedEnvelope {
  /** Minor format version: 0 (v1.0, legacy) or 1 (v1.1). */
  readonly minor: EnvelopeMinorVersion;
  readonly header: EnvelopeHeader;
  /** Bytes 0 … end of the recipient list. */
  readonly headerBytes: Uint8Array;
  /** `recipients.length` wraps of 48 bytes, back to back. */
  readonly wraps: Uint8Array;
  /** v1.1: the 32-byte key commitment (after the wraps); undefined in v1.0. */
  readonly commitment: Uint8Array | undefined;
  readonly nonce: Uint8Array;
  /** Content ciphertext followed by its 16-byte tag. */
  readonly ciphertext: Uint8Array;
  /** Everything before the signature (what the signature covers, via SHA-256). */
  readonly body: Uint8Array;
  readonly signature: Uint8Array;
}

/** True when `text` is a valid v1 `created_at` value. */
export function isCreatedAt(text: string): boolean {
  return isIsoUtcMillis(text);
}

/** Serialises the header. Inputs must already be validated (see seal). */
export function encodeHeader(h: EnvelopeHeader): Uint8Array {
  const minor: EnvelopeMinorVersion = h.eventType === undefined ? 0 : 1;
  const fields = [h.senderId, h.conversationId, h.messageId];
  if (h.eventType !== undefined) fields.push(h.eventType);
  const ids = fields.map(utf8);
  const rids = h.recipients.map((r) => utf8(r.id));
  let size = SIZES.prefix + SIZES.createdAt + SIZES.publicKey + 2;
  for (const b of ids) size += 1 + b.length;
  for (const b of rids) size += 1 + b.length + SIZES.fingerprint;
  const out = new Uint8Array(size);
  out.set(ENVELOPE_MAGIC, 0);
  out.set([ENVELOPE_VERSION.major, minor, ENVELOPE_SUITE, 0], 4);
  let o = SIZES.prefix;
  const put = (bytes: Uint8Array): void => {
    out.set(bytes, o);
    o += bytes.length;
  };
  for (const b of ids) {
    out[o++] = b.length;
    put(b);
  }
  put(utf8(h.createdAt));
  put(h.ephemeralPublicKey);
  out[o++] = h.recipients.length >> 8;
  out[o++] = h.recipients.length & 0xff;
  h.recipients.forEach((r, i) => {
    out[o++] = rids[i]!.length;
    put(rids[i]!);
    put(r.fingerprint);
  });
  return out;
}

/** Strict UTF-8 of a short field; ASCII (the common case) skips the TextDecoder. */
function decodeField(bytes: Uint8Array): string | undefined {
  let text = '';
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b > 0x7f) return fromUtf8(bytes);
    text += String.fromCharCode(b);
  }
  return text;
}

/** A bounds-checked cursor over the envelope bytes. */
class Reader {
  offset = 0;
  constructor(private readonly bytes: Uint8Array) {}

  take(n: number): Uint8Array {
    if (this.offset + n > this.bytes.length) throw invalidEnvelope('truncated');
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  u8(): number {
    return this.take(1)[0]!;
  }

  id(field: string): string {
    const len = this.u8();
    const text = len === 0 ? undefined : decodeField(this.take(len));
    if (text === undefined) throw invalidEnvelope(`${field} is empty or not UTF-8`);
    return text;
  }
}

function checkPrefix(bytes: Uint8Array): EnvelopeMinorVersion {
  if (bytes.length < SIZES.prefix) throw invalidEnvelope('truncated');
  for (let i = 0; i < 4; i++) if (bytes[i] !== ENVELOPE_MAGIC[i]) throw invalidEnvelope('bad magic');
  const minor = bytes[5];
  if (bytes[4] !== ENVELOPE_VERSION.major || (minor !== 0 && minor !== 1)) {
    throw invalidEnvelope('unknown format version');
  }
  if (bytes[6] !== ENVELOPE_SUITE) throw invalidEnvelope('unknown cipher suite');
  if (bytes[7] !== 0) throw invalidEnvelope('reserved flags set');
  return minor;
}

function readHeader(r: Reader, minor: EnvelopeMinorVersion): EnvelopeHeader {
  r.offset = SIZES.prefix;
  const senderId = r.id('sender id');
  const conversationId = r.id('conversation id');
  const messageId = r.id('message id');
  const eventType = minor === 1 ? r.id('event type') : undefined;
  const createdAt = decodeField(r.take(SIZES.createdAt)) ?? '';
  if (!isCreatedAt(createdAt)) throw invalidEnvelope('bad created_at');
  const ephemeralPublicKey = r.take(SIZES.publicKey);
  const count = (r.u8() << 8) | r.u8();
  if (count === 0 || count > MAX_RECIPIENTS) throw invalidEnvelope('bad recipient count');
  const recipients: RecipientEntry[] = [];
  for (let i = 0; i < count; i++) {
    recipients.push({ id: r.id('recipient id'), fingerprint: r.take(SIZES.fingerprint) });
  }
  // One object shape for both versions (eventType undefined in v1.0) keeps the readers monomorphic.
  return { senderId, conversationId, messageId, eventType, createdAt, ephemeralPublicKey, recipients };
}

/**
 * Splits raw envelope bytes into their parts.
 *
 * @throws {@link index!CryptoError | CryptoError} `INVALID_ENVELOPE` on any structural problem.
 */
export function parseEnvelope(bytes: Uint8Array): ParsedEnvelope {
  const minor = checkPrefix(bytes);
  const r = new Reader(bytes);
  const header = readHeader(r, minor);
  const headerBytes = bytes.subarray(0, r.offset);
  const wraps = r.take(header.recipients.length * SIZES.wrap);
  const commitment = minor === 1 ? r.take(SIZES.commitment) : undefined;
  const nonce = r.take(SIZES.nonce);
  const bodyEnd = bytes.length - SIZES.signature;
  if (bodyEnd - r.offset < SIZES.tag) throw invalidEnvelope('truncated');
  return {
    minor,
    header,
    headerBytes,
    wraps,
    commitment,
    nonce,
    ciphertext: bytes.subarray(r.offset, bodyEnd),
    body: bytes.subarray(0, bodyEnd),
    signature: bytes.subarray(bodyEnd),
  };
}

/** Size in bytes of an envelope with these parts (`committed`: v1.1, with a key commitment). */
export function envelopeSize(
  headerBytes: number,
  recipients: number,
  plaintextBytes: number,
  committed = false,
): number {
  const commitment = committed ? SIZES.commitment : 0;
  return (
    headerBytes +
    recipients * SIZES.wrap +
    commitment +
    SIZES.nonce +
    plaintextBytes +
    SIZES.tag +
    SIZES.signature
  );
}

/** The parts of an envelope that precede its ciphertext. */
export interface EnvelopePrefix {
  readonly headerBytes: Uint8Array;
  readonly wraps: readonly Uint8Array[];
  /** v1.1: the key commitment; undefined in v1.0. */
  readonly commitment: Uint8Array | undefined;
  readonly nonce: Uint8Array;
}

/** Bytes before the ciphertext: header ‖ wraps ‖ [commitment] ‖ nonce. */
export function prefixLength(p: EnvelopePrefix): number {
  return p.headerBytes.length + p.wraps.length * SIZES.wrap + (p.commitment?.length ?? 0) + p.nonce.length;
}

/**
 * Writes header ‖ wraps ‖ [commitment, v1.1] ‖ nonce at the start of `out`
 * (sized for the ciphertext and the 64-byte signature after them) and
 * returns the offset where the ciphertext goes.
 */
export function writeEnvelopePrefix(p: EnvelopePrefix, out: Uint8Array): number {
  out.set(p.headerBytes, 0);
  let o = p.headerBytes.length;
  for (const w of p.wraps) {
    out.set(w, o);
    o += w.length;
  }
  if (p.commitment !== undefined) {
    out.set(p.commitment, o);
    o += p.commitment.length;
  }
  out.set(p.nonce, o);
  return o + p.nonce.length;
}

/**
 * Lays out header ‖ wraps ‖ [commitment, v1.1] ‖ nonce ‖ ciphertext in one
 * buffer with 64 bytes left at the end for the signature.
 */
export function assembleEnvelope(
  headerBytes: Uint8Array,
  wraps: readonly Uint8Array[],
  commitment: Uint8Array | undefined,
  nonce: Uint8Array,
  ciphertext: Uint8Array,
): Uint8Array {
  const prefix = { headerBytes, wraps, commitment, nonce };
  const out = new Uint8Array(prefixLength(prefix) + ciphertext.length + SIZES.signature);
  out.set(ciphertext, writeEnvelopePrefix(prefix, out));
  return out;
}
