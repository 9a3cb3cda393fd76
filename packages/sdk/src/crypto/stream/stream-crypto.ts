/**
 * Streamed replies, v1: one sealed envelope carries a fresh 32-byte stream
 * key K; every delta is AES-256-GCM under a key derived from K, its nonce and
 * AAD bind the stream id and the sequence number; the end is an Ed25519
 * signature by the sender over (stream id, final seq, transcript hash).
 *
 * - S = SHA-256(UTF-8 stream id)
 * - delta key DK = HKDF-Expand(K, "ams/stream/v1/delta" ‖ S, 32) = HMAC-SHA256(K, label ‖ S ‖ 0x01)
 * - nonce(kind, seq) = u32(kind) ‖ u64(seq): kind 0 for a delta, 1 for the abort reason
 * - delta i (seq i = 1, 2, …): C_i = AES-256-GCM(DK, nonce(0, i), text_i, aad = "ams/stream/v1/delta" ‖ S ‖ u64(i))
 * - abort: AES-256-GCM(DK, nonce(1, n + 1), reason, aad = "ams/stream/v1/abort" ‖ S ‖ u64(n + 1))
 * - transcript T = SHA-256("ams/stream/v1/transcript" ‖ S ‖ u64(1) ‖ u32(|C_1|) ‖ C_1 ‖ … ‖ u64(n) ‖ u32(|C_n|) ‖ C_n)
 * - end signature = Ed25519(sender, "ams/stream/v1/end" ‖ S ‖ u64(n) ‖ T)
 *
 * A delta opened under the wrong seq or stream fails its tag (reordering,
 * duplication and splicing are caught at once); a truncated stream fails the
 * end (its final seq or transcript differs, or no end arrives). docs/envelope.md,
 * "Streamed replies", has the construction and test vectors.
 *
 * @module
 */
import { concatBytes, utf8 } from '../../core/encoding.js';
import { defaultSyncBackend } from '../backend/node-default.js';
import type { AsyncPrimitives, IncrementalHash, RawKeyPair, SyncPrimitives } from '../backend/types.js';
import { constantTimeEqual } from '../key-schedule.js';

/** Bytes of a stream key. */
export const STREAM_KEY_BYTES = 32;
/** The `type` of the sealed payload that carries a stream key. */
export const STREAM_OPEN_PAYLOAD_TYPE = 'stream.open';
/** Version of the stream construction carried in the `stream.open` payload. */
export const STREAM_CRYPTO_VERSION = 1;

const DELTA_LABEL = utf8('ams/stream/v1/delta');
const ABORT_LABEL = utf8('ams/stream/v1/abort');
const TRANSCRIPT_LABEL = utf8('ams/stream/v1/transcript');
const END_LABEL = utf8('ams/stream/v1/end');
const BLOCK_1 = Uint8Array.of(1);
const KIND_DELTA = 0;
const KIND_ABORT = 1;

const TWO_32 = 0x1_0000_0000;

/** Writes `n` (a safe non-negative integer) big-endian into 8 bytes at `at` (no BigInt on the hot path). */
function putU64(view: DataView, at: number, n: number): void {
  view.setUint32(at, Math.floor(n / TWO_32));
  view.setUint32(at + 4, n >>> 0);
}

function u64(n: number): Uint8Array {
  const out = new Uint8Array(8);
  putU64(new DataView(out.buffer), 0, n);
  return out;
}

function nonceOf(kind: number, seq: number): Uint8Array {
  const out = new Uint8Array(12);
  const view = new DataView(out.buffer);
  view.setUint32(0, kind);
  putU64(view, 4, seq);
  return out;
}

/** `prefix ‖ u64(seq)`, the prefix computed once per stream. */
function aadWith(prefix: Uint8Array): (seq: number) => Uint8Array {
  return (seq) => {
    const out = new Uint8Array(prefix.length + 8);
    out.set(prefix);
    putU64(new DataView(out.buffer), prefix.length, seq);
    return out;
  };
}

/** The keys and running state of one stream, on the sync primitives of a backend. */
export interface StreamCipher {
  /** The stream id the keys are bound to. */
  readonly streamId: string;
  /** Seals delta `seq` (1, 2, …): ciphertext ‖ 16-byte tag. */
  sealDelta(seq: number, plaintext: Uint8Array): Uint8Array;
  /** Opens delta `seq`, or `undefined` when the tag does not match (tampered, wrong seq or stream). */
  openDelta(seq: number, sealed: Uint8Array): Uint8Array | undefined;
  /** Seals the abort reason after `lastSeq` deltas. */
  sealAbort(lastSeq: number, reason: Uint8Array): Uint8Array;
  /** Opens the abort reason after `lastSeq` deltas, or `undefined`. */
  openAbort(lastSeq: number, sealed: Uint8Array): Uint8Array | undefined;
}

/**
 * The hashing a transcript needs: SHA-256, incremental when it can be. Every
 * backend's sync primitives fit; so does a browser page's `@noble/hashes`
 * (WebCrypto has no synchronous hash).
 */
export type StreamHashPrimitives = Pick<SyncPrimitives, 'sha256' | 'sha256Incremental'>;

/** S = SHA-256(stream id). */
function streamDigest(s: StreamHashPrimitives, streamId: string): Uint8Array {
  return s.sha256(utf8(streamId));
}

/**
 * The cipher of a stream: derives DK from the stream key once.
 *
 * @param s - sync primitives; @defaultValue the node:crypto backend's
 */
export function streamCipher(
  streamKey: Uint8Array,
  streamId: string,
  s: SyncPrimitives = defaultSyncBackend().sync,
): StreamCipher {
  if (streamKey.length !== STREAM_KEY_BYTES) throw new RangeError('A stream key has 32 bytes.');
  const sid = streamDigest(s, streamId);
  const dk = s.hmacSha256(streamKey, concatBytes(DELTA_LABEL, sid, BLOCK_1));
  const deltaAad = aadWith(concatBytes(DELTA_LABEL, sid));
  const abortAad = aadWith(concatBytes(ABORT_LABEL, sid));
  return {
    streamId,
    sealDelta: (seq, plaintext) => s.aesGcmEncrypt(dk, nonceOf(KIND_DELTA, seq), plaintext, deltaAad(seq)),
    openDelta: (seq, sealed) => s.aesGcmDecrypt(dk, nonceOf(KIND_DELTA, seq), sealed, deltaAad(seq)),
    sealAbort: (lastSeq, reason) =>
      s.aesGcmEncrypt(dk, nonceOf(KIND_ABORT, lastSeq + 1), reason, abortAad(lastSeq + 1)),
    openAbort: (lastSeq, sealed) =>
      s.aesGcmDecrypt(dk, nonceOf(KIND_ABORT, lastSeq + 1), sealed, abortAad(lastSeq + 1)),
  };
}

/** The opening half of a {@link StreamCipher} on asynchronous primitives (a browser's WebCrypto). */
export interface AsyncStreamOpener {
  /** The stream id the keys are bound to. */
  readonly streamId: string;
  /** Opens delta `seq`, or `undefined` when the tag does not match. */
  openDelta(seq: number, sealed: Uint8Array): Promise<Uint8Array | undefined>;
  /** Opens the abort reason after `lastSeq` deltas, or `undefined`. */
  openAbort(lastSeq: number, sealed: Uint8Array): Promise<Uint8Array | undefined>;
}

/**
 * The receiving side of a stream on asynchronous primitives (the portable
 * backend: WebCrypto has no synchronous AES-GCM). Same keys, nonces and AAD as
 * {@link streamCipher}.
 *
 * @example
 * ```ts
 * const opener = await streamOpenerAsync(key, streamId, portableBackend.async);
 * const text = await opener.openDelta(1, sealed);
 * ```
 */
export async function streamOpenerAsync(
  streamKey: Uint8Array,
  streamId: string,
  a: AsyncPrimitives,
): Promise<AsyncStreamOpener> {
  if (streamKey.length !== STREAM_KEY_BYTES) throw new RangeError('A stream key has 32 bytes.');
  const sid = await a.sha256(utf8(streamId));
  const dk = await a.hmacSha256(streamKey, concatBytes(DELTA_LABEL, sid, BLOCK_1));
  const deltaAad = aadWith(concatBytes(DELTA_LABEL, sid));
  const abortAad = aadWith(concatBytes(ABORT_LABEL, sid));
  return {
    streamId,
    openDelta: (seq, sealed) => a.aesGcmDecrypt(dk, nonceOf(KIND_DELTA, seq), sealed, deltaAad(seq)),
    openAbort: (lastSeq, sealed) =>
      a.aesGcmDecrypt(dk, nonceOf(KIND_ABORT, lastSeq + 1), sealed, abortAad(lastSeq + 1)),
  };
}

/**
 * The transcript hash over the delta ciphertexts, one pass:
 * T = SHA-256("ams/stream/v1/transcript" ‖ S ‖ u64(1) ‖ u32(|C_1|) ‖ C_1 ‖ … ‖ u64(n) ‖ u32(|C_n|) ‖ C_n).
 * Each delta is hashed once (incrementally where the backend can; else the
 * input is kept and hashed at the end).
 */
export class StreamTranscript {
  readonly #s: StreamHashPrimitives;
  readonly #incremental: IncrementalHash | undefined;
  readonly #kept: Uint8Array[] = [];
  #seq = 0;
  #hash: Uint8Array | undefined;

  constructor(streamId: string, s: StreamHashPrimitives = defaultSyncBackend().sync) {
    this.#s = s;
    this.#incremental = s.sha256Incremental?.();
    this.#feed(concatBytes(TRANSCRIPT_LABEL, streamDigest(s, streamId)));
  }

  /** The seq of the last delta added (0 before any). */
  get seq(): number {
    return this.#seq;
  }

  /** T over the deltas added so far; no delta can be added after it was read. */
  get hash(): Uint8Array {
    this.#hash ??= this.#incremental?.digest() ?? this.#s.sha256(concatBytes(...this.#kept));
    return this.#hash;
  }

  /** Adds delta `seq` (which must be the next one). */
  add(seq: number, sealed: Uint8Array): void {
    if (seq !== this.#seq + 1) throw new RangeError('Transcript deltas must come in order.');
    if (this.#hash !== undefined) throw new RangeError('The transcript was already read.');
    const head = new Uint8Array(12);
    const view = new DataView(head.buffer);
    putU64(view, 0, seq);
    view.setUint32(8, sealed.length);
    this.#feed(head);
    this.#feed(sealed);
    this.#seq = seq;
  }

  #feed(data: Uint8Array): void {
    if (this.#incremental !== undefined) this.#incremental.update(data);
    else this.#kept.push(data);
  }
}

/** The message the end signature covers: "ams/stream/v1/end" ‖ S ‖ u64(final seq) ‖ T_n. */
export function streamEndMessage(
  streamId: string,
  finalSeq: number,
  transcriptHash: Uint8Array,
  s: StreamHashPrimitives = defaultSyncBackend().sync,
): Uint8Array {
  return concatBytes(END_LABEL, streamDigest(s, streamId), u64(finalSeq), transcriptHash);
}

/** Signs the end of a stream with the sender's Ed25519 pair. */
export function signStreamEnd(
  signing: RawKeyPair,
  streamId: string,
  finalSeq: number,
  transcriptHash: Uint8Array,
  s: SyncPrimitives = defaultSyncBackend().sync,
): Uint8Array {
  return s.ed25519Sign(signing, streamEndMessage(streamId, finalSeq, transcriptHash, s));
}

/**
 * Checks an end against the transcript the receiver computed itself: same
 * final seq, same transcript hash, and a valid signature by `signingPublicKey`.
 */
export function verifyStreamEnd(
  signingPublicKey: Uint8Array,
  end: {
    readonly streamId: string;
    readonly finalSeq: number;
    readonly transcriptHash: Uint8Array;
    readonly signature: Uint8Array;
  },
  local: StreamTranscript,
  s: SyncPrimitives = defaultSyncBackend().sync,
): 'ok' | 'truncated' | 'transcript' | 'signature' {
  if (end.finalSeq !== local.seq) return 'truncated';
  if (!constantTimeEqual(end.transcriptHash, local.hash)) return 'transcript';
  const message = streamEndMessage(end.streamId, end.finalSeq, end.transcriptHash, s);
  return s.ed25519Verify(signingPublicKey, message, end.signature) ? 'ok' : 'signature';
}
