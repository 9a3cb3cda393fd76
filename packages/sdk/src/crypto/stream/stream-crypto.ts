/**
 * Streamed replies, v2: one sealed envelope carries a fresh 32-byte stream
 * key K; every delta is AES-256-GCM under a key derived from K (nonce and AAD
 * bind the stream id and the sequence number), and the text is authenticated
 * **as the sender's** by Ed25519 signatures over a keyed hash chain:
 *
 * - S = SHA-256(UTF-8 stream id)
 * - delta key DK = HMAC-SHA256(K, "ams/stream/v2/delta" ‖ S ‖ 0x01)
 * - chain start H_0 = HMAC-SHA256(K, "ams/stream/v2/chain" ‖ S ‖ 0x01)
 * - H_i = SHA-256(H_{i-1} ‖ u64(i) ‖ u32(|t_i|) ‖ t_i), t_i the UTF-8 text of delta i
 * - delta i: C_i = AES-256-GCM(DK, u32(0) ‖ u64(i), P_i, aad = "ams/stream/v2/delta" ‖ S ‖ u64(i)), where
 *   P_i = 0x00 ‖ t_i, or P_i = 0x01 ‖ σ_i ‖ t_i with the checkpoint
 *   σ_i = Ed25519(sender, "ams/stream/v2/checkpoint" ‖ S ‖ u64(i) ‖ H_i)
 * - end after n deltas (in the clear): n, H_n and Ed25519(sender, "ams/stream/v2/end" ‖ S ‖ u64(n) ‖ H_n)
 * - abort after n deltas: AES-256-GCM(DK, u32(1) ‖ u64(n + 1), σ_a ‖ reason, aad = "ams/stream/v2/abort" ‖ S ‖ u64(n + 1)),
 *   σ_a = Ed25519(sender, "ams/stream/v2/aborted" ‖ S ‖ u64(n) ‖ H_n ‖ reason)
 *
 * A receiver shows delta i only once a signature by the sender covers H_j
 * for some j ≥ i (a checkpoint, the end or the abort): a group member holds
 * K, so it can seal a delta that opens, but it cannot sign. The sender puts a
 * checkpoint at least every {@link STREAM_CHECKPOINT_MAX_DELTAS} deltas and at
 * the end of every burst of writes. docs/envelope.md, "Streamed replies", has
 * the construction and test vectors.
 *
 * @module
 */
import { concatBytes, utf8 } from '../../core/encoding.js';
import { STREAM_LIMITS } from '../../core/limits/streams.js';
import { defaultSyncBackend } from '../backend/node-default.js';
import type { AsyncPrimitives, RawKeyPair, SyncPrimitives } from '../backend/types.js';
import { constantTimeEqual } from '../key-schedule.js';

/** Bytes of a stream key. */
export const STREAM_KEY_BYTES = 32;
/** The `type` of the sealed payload that carries a stream key. */
export const STREAM_OPEN_PAYLOAD_TYPE = 'stream.open';
/** Version of the stream construction carried in the `stream.open` payload (v1, member-forgeable, is refused). */
export const STREAM_CRYPTO_VERSION = 2;
/** Bytes of an Ed25519 signature. */
export const STREAM_SIGNATURE_BYTES = 64;
/**
 * A sender signs a checkpoint at least every this many deltas; a receiver
 * fails a stream that sends more deltas than this without one.
 */
export const STREAM_CHECKPOINT_MAX_DELTAS = 256;
/** UTF-8 bytes of text one delta carries (its framed plaintext stays within `MAX_DELTA_BYTES`). */
export const STREAM_DELTA_TEXT_MAX_BYTES = STREAM_LIMITS.MAX_DELTA_BYTES - 1 - STREAM_SIGNATURE_BYTES;
/** UTF-8 bytes of an abort reason (its signature and reason fit the abort ciphertext limit). */
export const STREAM_ABORT_REASON_MAX_BYTES = 1_024 - STREAM_SIGNATURE_BYTES;

const DELTA_LABEL = utf8('ams/stream/v2/delta');
const ABORT_LABEL = utf8('ams/stream/v2/abort');
const CHAIN_LABEL = utf8('ams/stream/v2/chain');
const CHECKPOINT_LABEL = utf8('ams/stream/v2/checkpoint');
const END_LABEL = utf8('ams/stream/v2/end');
const ABORTED_LABEL = utf8('ams/stream/v2/aborted');
const BLOCK_1 = Uint8Array.of(1);
const KIND_DELTA = 0;
const KIND_ABORT = 1;
const FLAG_PLAIN = 0;
const FLAG_SIGNED = 1;

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

/** The keys of one stream, on the sync primitives of a backend. */
export interface StreamCipher {
  /** The stream id the keys are bound to. */
  readonly streamId: string;
  /** H_0, the start of the keyed hash chain (secret: derived from the stream key). */
  readonly chainStart: Uint8Array;
  /** Seals the framed plaintext of delta `seq` (1, 2, …): ciphertext ‖ 16-byte tag. */
  sealDelta(seq: number, framed: Uint8Array): Uint8Array;
  /** Opens delta `seq` to its framed plaintext, or `undefined` when the tag does not match. */
  openDelta(seq: number, sealed: Uint8Array): Uint8Array | undefined;
  /** Seals the framed abort (signature ‖ reason) after `lastSeq` deltas. */
  sealAbort(lastSeq: number, framed: Uint8Array): Uint8Array;
  /** Opens the framed abort after `lastSeq` deltas, or `undefined`. */
  openAbort(lastSeq: number, sealed: Uint8Array): Uint8Array | undefined;
}

/**
 * The hashing a chain needs: SHA-256. Every backend's sync primitives fit;
 * so does a browser page's `@noble/hashes` (WebCrypto has no synchronous hash).
 */
export type StreamHashPrimitives = Pick<SyncPrimitives, 'sha256'> &
  Partial<Pick<SyncPrimitives, 'sha256Incremental'>>;

/** S = SHA-256(stream id). */
function streamDigest(s: StreamHashPrimitives, streamId: string): Uint8Array {
  return s.sha256(utf8(streamId));
}

/**
 * The cipher of a stream: derives DK and H_0 from the stream key once.
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
  const chainStart = s.hmacSha256(streamKey, concatBytes(CHAIN_LABEL, sid, BLOCK_1));
  const deltaAad = aadWith(concatBytes(DELTA_LABEL, sid));
  const abortAad = aadWith(concatBytes(ABORT_LABEL, sid));
  return {
    streamId,
    chainStart,
    sealDelta: (seq, framed) => s.aesGcmEncrypt(dk, nonceOf(KIND_DELTA, seq), framed, deltaAad(seq)),
    openDelta: (seq, sealed) => s.aesGcmDecrypt(dk, nonceOf(KIND_DELTA, seq), sealed, deltaAad(seq)),
    sealAbort: (lastSeq, framed) =>
      s.aesGcmEncrypt(dk, nonceOf(KIND_ABORT, lastSeq + 1), framed, abortAad(lastSeq + 1)),
    openAbort: (lastSeq, sealed) =>
      s.aesGcmDecrypt(dk, nonceOf(KIND_ABORT, lastSeq + 1), sealed, abortAad(lastSeq + 1)),
  };
}

/** The opening half of a {@link StreamCipher} on asynchronous primitives (a browser's WebCrypto). */
export interface AsyncStreamOpener {
  /** The stream id the keys are bound to. */
  readonly streamId: string;
  /** H_0, the start of the keyed hash chain. */
  readonly chainStart: Uint8Array;
  /** Opens delta `seq` to its framed plaintext, or `undefined` when the tag does not match. */
  openDelta(seq: number, sealed: Uint8Array): Promise<Uint8Array | undefined>;
  /** Opens the framed abort after `lastSeq` deltas, or `undefined`. */
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
 * const framed = await opener.openDelta(1, sealed);
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
  const chainStart = await a.hmacSha256(streamKey, concatBytes(CHAIN_LABEL, sid, BLOCK_1));
  const deltaAad = aadWith(concatBytes(DELTA_LABEL, sid));
  const abortAad = aadWith(concatBytes(ABORT_LABEL, sid));
  return {
    streamId,
    chainStart,
    openDelta: (seq, sealed) => a.aesGcmDecrypt(dk, nonceOf(KIND_DELTA, seq), sealed, deltaAad(seq)),
    openAbort: (lastSeq, sealed) =>
      a.aesGcmDecrypt(dk, nonceOf(KIND_ABORT, lastSeq + 1), sealed, abortAad(lastSeq + 1)),
  };
}

/**
 * The keyed hash chain over the delta texts:
 * H_i = SHA-256(H_{i-1} ‖ u64(i) ‖ u32(|t_i|) ‖ t_i), from H_0 = the cipher's `chainStart`.
 * Every H_i is available at once (checkpoints sign them).
 */
export class StreamChain {
  readonly #s: StreamHashPrimitives;
  #hash: Uint8Array;
  #seq = 0;

  constructor(chainStart: Uint8Array, s: StreamHashPrimitives = defaultSyncBackend().sync) {
    if (chainStart.length !== 32) throw new RangeError('A chain start has 32 bytes.');
    this.#s = s;
    this.#hash = chainStart;
  }

  /** The seq of the last delta added (0 before any). */
  get seq(): number {
    return this.#seq;
  }

  /** H over the deltas added so far (H_0 before any). */
  get hash(): Uint8Array {
    return this.#hash;
  }

  /** Adds the text of delta `seq` (which must be the next one); returns H_seq. */
  add(seq: number, text: Uint8Array): Uint8Array {
    if (seq !== this.#seq + 1) throw new RangeError('Chain deltas must come in order.');
    const input = new Uint8Array(32 + 12 + text.length);
    input.set(this.#hash);
    const view = new DataView(input.buffer);
    putU64(view, 32, seq);
    view.setUint32(40, text.length);
    input.set(text, 44);
    this.#hash = this.#s.sha256(input);
    this.#seq = seq;
    return this.#hash;
  }
}

/** P = 0x00 ‖ text, or 0x01 ‖ signature ‖ text: the plaintext sealed as one delta. */
export function frameStreamDelta(text: Uint8Array, signature?: Uint8Array): Uint8Array {
  if (signature === undefined) {
    const out = new Uint8Array(1 + text.length);
    out[0] = FLAG_PLAIN;
    out.set(text, 1);
    return out;
  }
  if (signature.length !== STREAM_SIGNATURE_BYTES) throw new RangeError('A signature has 64 bytes.');
  const out = new Uint8Array(1 + STREAM_SIGNATURE_BYTES + text.length);
  out[0] = FLAG_SIGNED;
  out.set(signature, 1);
  out.set(text, 1 + STREAM_SIGNATURE_BYTES);
  return out;
}

/** The text and checkpoint of an opened delta, or `undefined` when its framing is malformed. */
export function unframeStreamDelta(
  framed: Uint8Array,
): { readonly text: Uint8Array; readonly signature: Uint8Array | undefined } | undefined {
  if (framed.length < 1) return undefined;
  if (framed[0] === FLAG_PLAIN) return { text: framed.subarray(1), signature: undefined };
  if (framed[0] !== FLAG_SIGNED || framed.length < 1 + STREAM_SIGNATURE_BYTES) return undefined;
  return {
    signature: framed.subarray(1, 1 + STREAM_SIGNATURE_BYTES),
    text: framed.subarray(1 + STREAM_SIGNATURE_BYTES),
  };
}

/** The signature and reason of an opened abort, or `undefined` when it is too short. */
export function unframeStreamAbort(
  framed: Uint8Array,
): { readonly signature: Uint8Array; readonly reason: Uint8Array } | undefined {
  if (framed.length < STREAM_SIGNATURE_BYTES) return undefined;
  return {
    signature: framed.subarray(0, STREAM_SIGNATURE_BYTES),
    reason: framed.subarray(STREAM_SIGNATURE_BYTES),
  };
}

/** What a stream signature covers: `label ‖ S ‖ u64(seq) ‖ H_seq` (‖ reason, for an abort). */
export type StreamSignedKind = 'checkpoint' | 'end' | 'aborted';

const SIGNED_LABELS: Readonly<Record<StreamSignedKind, Uint8Array>> = {
  checkpoint: CHECKPOINT_LABEL,
  end: END_LABEL,
  aborted: ABORTED_LABEL,
};

/**
 * The message a stream signature covers: "ams/stream/v2/<kind>" ‖ S ‖ u64(seq) ‖ H_seq,
 * followed by the reason bytes for `aborted`.
 */
export function streamSignedMessage(
  kind: StreamSignedKind,
  streamId: string,
  seq: number,
  chainHash: Uint8Array,
  s: StreamHashPrimitives = defaultSyncBackend().sync,
  reason: Uint8Array = new Uint8Array(0),
): Uint8Array {
  return concatBytes(SIGNED_LABELS[kind], streamDigest(s, streamId), u64(seq), chainHash, reason);
}

/** The message the end signature covers: "ams/stream/v2/end" ‖ S ‖ u64(final seq) ‖ H_n. */
export function streamEndMessage(
  streamId: string,
  finalSeq: number,
  chainHash: Uint8Array,
  s: StreamHashPrimitives = defaultSyncBackend().sync,
): Uint8Array {
  return streamSignedMessage('end', streamId, finalSeq, chainHash, s);
}

/** Signs a checkpoint, the end or the abort of a stream with the sender's Ed25519 pair. */
export function signStream(
  signing: RawKeyPair,
  kind: StreamSignedKind,
  streamId: string,
  seq: number,
  chainHash: Uint8Array,
  s: SyncPrimitives = defaultSyncBackend().sync,
  reason?: Uint8Array,
): Uint8Array {
  return s.ed25519Sign(signing, streamSignedMessage(kind, streamId, seq, chainHash, s, reason));
}

/** Signs the end of a stream with the sender's Ed25519 pair. */
export function signStreamEnd(
  signing: RawKeyPair,
  streamId: string,
  finalSeq: number,
  chainHash: Uint8Array,
  s: SyncPrimitives = defaultSyncBackend().sync,
): Uint8Array {
  return signStream(signing, 'end', streamId, finalSeq, chainHash, s);
}

/** True when `signature` is the sender's over (kind, stream, seq, H_seq[, reason]). */
export function verifyStreamSignature(
  signingPublicKey: Uint8Array,
  kind: StreamSignedKind,
  streamId: string,
  seq: number,
  chainHash: Uint8Array,
  signature: Uint8Array,
  s: SyncPrimitives = defaultSyncBackend().sync,
  reason?: Uint8Array,
): boolean {
  return s.ed25519Verify(
    signingPublicKey,
    streamSignedMessage(kind, streamId, seq, chainHash, s, reason),
    signature,
  );
}

/**
 * Checks an end against the chain the receiver computed itself: same final
 * seq, same H_n, and a valid signature by `signingPublicKey`.
 */
export function verifyStreamEnd(
  signingPublicKey: Uint8Array,
  end: {
    readonly streamId: string;
    readonly finalSeq: number;
    readonly transcriptHash: Uint8Array;
    readonly signature: Uint8Array;
  },
  local: StreamChain,
  s: SyncPrimitives = defaultSyncBackend().sync,
): 'ok' | 'truncated' | 'transcript' | 'signature' {
  if (end.finalSeq !== local.seq) return 'truncated';
  if (!constantTimeEqual(end.transcriptHash, local.hash)) return 'transcript';
  return verifyStreamSignature(
    signingPublicKey,
    'end',
    end.streamId,
    end.finalSeq,
    end.transcriptHash,
    end.signature,
    s,
  )
    ? 'ok'
    : 'signature';
}
