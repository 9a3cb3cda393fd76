/**
 * The writer of one streamed reply: `write(delta)`, `end(final?)`,
 * `abort(reason)`.
 *
 * Coalescing: text written within `coalesceMs` (default 10 ms) is sent as one
 * delta, or at once when `coalesceBytes` (default 1 024) are waiting; a delta
 * never carries more than 8 192 bytes (longer text is split on UTF-8
 * boundaries). `coalesceMs: 0` sends every write as its own delta.
 *
 * Back-pressure: `write()` resolves at once while the bytes queued towards the
 * service stay under `highWaterMark` (default 256 KiB); above it, it resolves
 * once they are back under half of it. Await it in a producer loop.
 *
 * Errors: once the service ends the stream (`StreamError`, reason one of the
 * five stream error values) or the connection is lost, every call rejects
 * with that error. Nothing is retried.
 *
 * @module
 */
import type { AmsError } from '../../core/errors/base.js';
import { ValidationError } from '../../core/errors/validation-error.js';
import { toBase64, utf8 } from '../../core/encoding.js';
import { STREAM_LIMITS } from '../../core/limits/streams.js';
import type { RawKeyPair } from '../../crypto/backend/types.js';
import { signStreamEnd, StreamTranscript, type StreamCipher } from '../../crypto/stream/stream-crypto.js';
import type { StreamTransport } from '../../messaging/stream-transport.js';

/** Options of a stream writer. */
export interface StreamWriterOptions {
  /** Send what was written within this many ms as one delta; 0 sends every write at once. @defaultValue 10 */
  readonly coalesceMs?: number;
  /** Send at once when this many bytes wait. @defaultValue 1024 */
  readonly coalesceBytes?: number;
  /** `write()` waits while more than this many bytes are queued towards the service. @defaultValue 262144 */
  readonly highWaterMark?: number;
}

/** What `end()` reports. */
export interface StreamSummary {
  /** The stream id (the signed message id of its key envelope). */
  readonly streamId: string;
  /** The whole text sent. */
  readonly text: string;
  /** Deltas sent (after coalescing). */
  readonly deltas: number;
}

/** The writer of one streamed reply. */
export interface StreamWriter {
  /** The stream id. */
  readonly streamId: string;
  /** The conversation streamed into. */
  readonly conversationId: string;
  /**
   * Appends text. Resolves when more may be written (see back-pressure).
   *
   * @throws {@link StreamError} once the service ended the stream; a TransportError when the connection is lost;
   * ValidationError after `end()` / `abort()`.
   */
  write(delta: string): Promise<void>;
  /** Sends what is buffered, appends `final` if given, and ends the stream with the signed transcript. */
  end(final?: string): Promise<StreamSummary>;
  /** Drops what is buffered and tells the user's devices the stream was abandoned (`reason` is sealed). */
  abort(reason?: string): Promise<void>;
}

/** What a writer needs. */
export interface StreamWriterDeps {
  readonly streamId: string;
  readonly conversationId: string;
  readonly cipher: StreamCipher;
  readonly signing: RawKeyPair;
  readonly transport: StreamTransport;
  readonly options?: StreamWriterOptions | undefined;
}

const MAX_ABORT_REASON_BYTES = 1_024;

/** Cuts `bytes` into pieces of at most `max` bytes, never inside a UTF-8 sequence. */
export function splitUtf8(bytes: Uint8Array, max: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let start = 0;
  while (bytes.length - start > max) {
    let end = start + max;
    while (end > start && (bytes[end]! & 0xc0) === 0x80) end -= 1;
    out.push(bytes.subarray(start, end));
    start = end;
  }
  if (bytes.length > start) out.push(bytes.subarray(start));
  return out;
}

function closedError(): ValidationError {
  return new ValidationError({
    message: 'The stream was already ended or aborted.',
    issues: [{ path: ['stream'], message: 'closed' }],
  });
}

/** Creates the writer of a stream whose start the service accepted. */
export function createStreamWriter(d: StreamWriterDeps): StreamWriter {
  const coalesceMs = d.options?.coalesceMs ?? 10;
  const coalesceBytes = d.options?.coalesceBytes ?? 1_024;
  const highWaterMark = d.options?.highWaterMark ?? 262_144;
  const transcript = new StreamTranscript(d.streamId);
  const { transport, cipher } = d;
  let pending: string[] = [];
  let pendingBytes = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  let text = '';

  const failure = (): AmsError | undefined => transport.failure;

  function flush(): void {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0 || failure() !== undefined) return;
    const joined = pending.length === 1 ? pending[0]! : pending.join('');
    pending = [];
    pendingBytes = 0;
    for (const piece of splitUtf8(utf8(joined), STREAM_LIMITS.MAX_DELTA_BYTES)) {
      const seq = transcript.seq + 1;
      const sealed = cipher.sealDelta(seq, piece);
      transcript.add(seq, sealed);
      transport.delta(seq, toBase64(sealed));
    }
  }

  return {
    streamId: d.streamId,
    conversationId: d.conversationId,

    async write(delta) {
      const error = failure();
      if (error !== undefined) throw error;
      if (closed) throw closedError();
      if (typeof delta !== 'string')
        throw new ValidationError({
          message: 'A delta is a string.',
          issues: [{ path: ['delta'], message: 'string' }],
        });
      if (delta.length === 0) return;
      text += delta;
      pending.push(delta);
      pendingBytes += delta.length;
      if (coalesceMs === 0 || pendingBytes >= coalesceBytes) flush();
      else timer ??= setTimeout(flush, coalesceMs);
      if (transport.bufferedAmount > highWaterMark) {
        await transport.drained(highWaterMark / 2);
        const after = failure();
        if (after !== undefined) throw after;
      }
    },

    async end(final) {
      if (final !== undefined && final.length > 0) {
        if (closed) throw closedError();
        text += final;
        pending.push(final);
      }
      const error = failure();
      if (error !== undefined) throw error;
      if (closed) throw closedError();
      closed = true;
      flush();
      const finalSeq = transcript.seq;
      const signature = signStreamEnd(d.signing, d.streamId, finalSeq, transcript.hash);
      await transport.end({
        final_seq: finalSeq,
        transcript_hash: toBase64(transcript.hash),
        signature: toBase64(signature),
      });
      return { streamId: d.streamId, text, deltas: finalSeq };
    },

    async abort(reason = 'aborted') {
      if (closed) return;
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      pending = [];
      const error = failure();
      if (error !== undefined) throw error;
      const bytes = utf8(reason).subarray(0, MAX_ABORT_REASON_BYTES);
      await transport.abort(toBase64(cipher.sealAbort(transcript.seq, bytes)));
    },
  };
}

/**
 * Writes every chunk of `source` (an LLM SDK's token stream) and ends the
 * stream; on an error of the source the stream is aborted and the error
 * rethrown.
 */
export async function pipeToWriter(
  writer: StreamWriter,
  source: AsyncIterable<string> | Iterable<string>,
): Promise<StreamSummary> {
  try {
    for await (const chunk of source) await writer.write(chunk);
  } catch (err) {
    await writer.abort('the source failed').catch(() => undefined);
    throw err;
  }
  return writer.end();
}
