/**
 * The writer of one streamed reply: `write(delta)`, the typed parts
 * (`reasoning`, `step`, `toolCall`, `toolResult`, `source`: records inside the
 * stream text, core/protocol/stream-parts.ts), `end(final?)`, `abort(reason)`.
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
 * Authentication (stream v2, docs/envelope.md): the last delta of every
 * burst of writes carries a checkpoint, the agent's Ed25519 signature over
 * the keyed hash chain of every delta so far, and at least every
 * {@link STREAM_CHECKPOINT_MAX_DELTAS} deltas. To know which delta is last,
 * the newest one is held until the writes of the current turn of the event
 * loop are done (a `setImmediate`), so a burst costs one signature and a
 * lone write is sent at once after it. The end and the abort are signed
 * over the same chain.
 *
 * Errors: once the service ends the stream (`StreamError`, reason one of the
 * five stream error values) or the connection is lost, every call rejects
 * with that error. Nothing is retried.
 *
 * @module
 */
import type { AmsError } from '../../core/errors/base.js';
import { ValidationError } from '../../core/errors/validation-error.js';
import { concatBytes, toBase64, utf8 } from '../../core/encoding.js';
import type { RawKeyPair } from '../../crypto/backend/types.js';
import {
  frameStreamDelta,
  signStream,
  StreamChain,
  STREAM_ABORT_REASON_MAX_BYTES,
  STREAM_CHECKPOINT_MAX_DELTAS,
  STREAM_DELTA_TEXT_MAX_BYTES,
  type StreamCipher,
} from '../../crypto/stream/stream-crypto.js';
import type { StreamTransport } from '../../messaging/stream-transport.js';
import { errorTypeOf } from '../../core/errors/error-type.js';
import {
  encodeStreamPart,
  encodeStreamText,
  type StreamJsonValue,
  type StreamPartRecord,
  type StreamStepStatus,
} from '../../core/protocol/stream-parts.js';

/** Options of a stream writer. */
export interface StreamWriterOptions {
  /** Send what was written within this many ms as one delta; 0 sends every write at once. @defaultValue 10 */
  readonly coalesceMs?: number;
  /** Send at once when this many bytes wait. @defaultValue 1024 */
  readonly coalesceBytes?: number;
  /** `write()` waits while more than this many bytes are queued towards the service. @defaultValue 262144 */
  readonly highWaterMark?: number;
}

/**
 * How a stream ended: `done` (`end()` was relayed), `stopped` (aborted: by
 * your code, a human's stop, a newer message superseding the turn, or
 * shutdown), `timed_out` (the service ended it with `STREAM_TIMEOUT`),
 * `failed` (any other stream error, or the connection was lost).
 */
export type ObservedStreamOutcome = 'done' | 'stopped' | 'timed_out' | 'failed';

/** The end of a stream: its outcome and counts, never its content. */
export interface ObservedStreamEnd {
  readonly outcome: ObservedStreamOutcome;
  /** The stream id; undefined when the opening failed. */
  readonly streamId: string | undefined;
  /** Deltas sent (after coalescing; each typed part travels inside one). */
  readonly deltas: number;
  /** Typed parts written (reasoning, step, tool call, tool result, source). */
  readonly parts: number;
  /** The error's code or class name when it `failed` or `timed_out` (never its message). */
  readonly errorType?: string;
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

/** A plan step (`stream.step()`): sent again with the same id, it updates in place. */
export interface StreamStepInput {
  /** Names the step; 1–128 characters. */
  readonly id: string;
  /** Shown to the user (up to 1 024 characters); may be left out on an update. */
  readonly title?: string;
  readonly status: StreamStepStatus;
  /** A line under the title (up to 4 096 characters). */
  readonly detail?: string;
}

/** A tool call (`stream.toolCall()`). */
export interface StreamToolCallInput {
  /** Links the call to its result; 1–128 characters, unique in the stream. */
  readonly callId: string;
  /** The tool's name (1–128 characters). */
  readonly name: string;
  /** The tool's input: a JSON value (as an LLM SDK gives it; checked at the call). */
  readonly input?: unknown;
}

/** A tool result (`stream.toolResult()`): an output, or an error. */
export interface StreamToolResultInput {
  /** The call id of the call it answers. */
  readonly callId: string;
  /** The tool's output: a JSON value (checked at the call). */
  readonly output?: unknown;
  /** Set when the tool failed (up to 4 096 characters); then no output. */
  readonly error?: string;
}

/** A source or citation (`stream.source()`): a URL or a title at least. */
export interface StreamSourceInput {
  /** Unique in the stream (1–128 characters). */
  readonly id: string;
  readonly url?: string;
  readonly title?: string;
  /** For a document source, e.g. `application/pdf`. */
  readonly mediaType?: string;
  readonly filename?: string;
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
  /**
   * Appends reasoning text (shown apart from the answer; consecutive calls form one reasoning part).
   * Like every part, it travels sealed and signed inside the stream text (docs/streaming.md, "Typed parts").
   *
   * @throws {@link ValidationError} when the text is over 65 536 characters; as `write()` otherwise.
   */
  reasoning(text: string): Promise<void>;
  /**
   * Adds a plan step, or updates the step with this id in place (its status, title, detail).
   *
   * @throws {@link ValidationError} for an empty id, an unknown status or a field over its limit; as `write()`.
   */
  step(step: StreamStepInput): Promise<void>;
  /**
   * Adds a tool call; its result follows with `toolResult({ callId })`.
   *
   * @throws {@link ValidationError} for a missing call id or name, an input that is not JSON, a record over 64 KiB.
   */
  toolCall(call: StreamToolCallInput): Promise<void>;
  /**
   * Completes the tool call with this call id: its output, or its error.
   *
   * @throws {@link ValidationError} for both an output and an error, an output that is not JSON, a record over 64 KiB.
   */
  toolResult(result: StreamToolResultInput): Promise<void>;
  /**
   * Adds a source or citation.
   *
   * @throws {@link ValidationError} without a URL or a title, or a field over its limit.
   */
  source(source: StreamSourceInput): Promise<void>;
  /** Sends what is buffered, appends `final` if given, and ends the stream with the signed transcript. */
  end(final?: string): Promise<StreamSummary>;
  /** Drops what is buffered and tells the user's devices the stream was abandoned (`reason` is sealed and signed). */
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
  /**
   * Called once when the stream is over: ended (`done`), aborted (`stopped`),
   * or failed (`timed_out` for the service's `STREAM_TIMEOUT`, `failed`
   * otherwise), with the counts of deltas and parts sent (for observers).
   */
  readonly onClose?: ((end: ObservedStreamEnd) => void) | undefined;
}

/** Runs `fn` once the current turn of the event loop is done (`setImmediate` where it exists). */
const afterTurn: (fn: () => void) => void =
  typeof globalThis.setImmediate === 'function'
    ? (fn) => void globalThis.setImmediate(fn)
    : (fn) => void globalThis.setTimeout(fn, 0);

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

function badPart(problem: string): ValidationError {
  return new ValidationError({ message: problem, issues: [{ path: ['part'], message: problem }] });
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
  const { transport, cipher } = d;
  const chain = new StreamChain(cipher.chainStart);
  let pending: string[] = [];
  let pendingBytes = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  let text = '';
  /** The newest piece, held until it is known whether it closes a burst (then it carries a checkpoint). */
  let tail: Uint8Array | undefined;
  let tailScheduled = false;
  /** Deltas sent since the last checkpoint. */
  let unsigned = 0;
  /** Typed parts accepted (reasoning, step, tool call, tool result, source). */
  let parts = 0;
  let over = false;

  const failure = (): AmsError | undefined => transport.failure;

  /** Reports the end of the stream once (the first outcome wins). */
  function finish(outcome: ObservedStreamOutcome, error?: unknown): void {
    if (over) return;
    over = true;
    d.onClose?.({
      outcome,
      streamId: d.streamId,
      deltas: chain.seq,
      parts,
      ...(error === undefined ? {} : { errorType: errorTypeOf(error) }),
    });
  }

  /** The outcome of a failure: the service's stream timeout, or any other error. */
  function failed(error: unknown): void {
    finish(errorTypeOf(error) === 'STREAM_TIMEOUT' ? 'timed_out' : 'failed', error);
  }

  if (d.onClose !== undefined) transport.onFailure(failed);

  function send(piece: Uint8Array, checkpoint: boolean): void {
    const seq = chain.seq + 1;
    const hash = chain.add(seq, piece);
    const signature = checkpoint ? signStream(d.signing, 'checkpoint', d.streamId, seq, hash) : undefined;
    unsigned = checkpoint ? 0 : unsigned + 1;
    transport.delta(seq, toBase64(cipher.sealDelta(seq, frameStreamDelta(piece, signature))));
  }

  /** Sends the held piece: with a checkpoint, unless the end or abort signs right after. */
  function releaseTail(checkpoint: boolean): void {
    const piece = tail;
    tail = undefined;
    if (piece === undefined || failure() !== undefined) return;
    send(piece, checkpoint);
  }

  function flush(): void {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0 || failure() !== undefined) return;
    const joined = pending.length === 1 ? pending[0]! : pending.join('');
    pending = [];
    pendingBytes = 0;
    for (const piece of splitUtf8(utf8(joined), STREAM_DELTA_TEXT_MAX_BYTES)) {
      if (tail !== undefined) send(tail, unsigned + 1 >= STREAM_CHECKPOINT_MAX_DELTAS);
      tail = piece;
    }
    if (!tailScheduled) {
      tailScheduled = true;
      afterTurn(() => {
        tailScheduled = false;
        if (!closed) releaseTail(true);
      });
    }
  }

  function checkOpen(): void {
    const error = failure();
    if (error !== undefined) throw error;
    if (closed) throw closedError();
  }

  /** Queues encoded stream text (coalesced like any write) and applies back-pressure. */
  async function append(encoded: string): Promise<void> {
    pending.push(encoded);
    pendingBytes += encoded.length;
    if (coalesceMs === 0 || pendingBytes >= coalesceBytes) flush();
    else timer ??= setTimeout(flush, coalesceMs);
    if (transport.bufferedAmount > highWaterMark) {
      await transport.drained(highWaterMark / 2);
      const after = failure();
      if (after !== undefined) throw after;
    }
  }

  /** Checks, encodes and queues one typed part. */
  async function part(record: StreamPartRecord): Promise<void> {
    checkOpen();
    const encoded = encodeStreamPart(record);
    if ('problem' in encoded) throw badPart(encoded.problem);
    parts += 1;
    return append(encoded.text);
  }

  return {
    streamId: d.streamId,
    conversationId: d.conversationId,

    async write(delta) {
      checkOpen();
      if (typeof delta !== 'string')
        throw new ValidationError({
          message: 'A delta is a string.',
          issues: [{ path: ['delta'], message: 'string' }],
        });
      if (delta.length === 0) return;
      text += delta;
      return append(encodeStreamText(delta));
    },

    reasoning(reasoningText) {
      return part({ type: 'reasoning', text: reasoningText });
    },

    step(step) {
      return part({
        type: 'step',
        id: step.id,
        status: step.status,
        ...(step.title === undefined ? {} : { title: step.title }),
        ...(step.detail === undefined ? {} : { detail: step.detail }),
      });
    },

    toolCall(call) {
      return part({
        type: 'tool-call',
        call_id: call.callId,
        name: call.name,
        ...(call.input === undefined ? {} : { input: call.input as StreamJsonValue }),
      });
    },

    toolResult(result) {
      return part({
        type: 'tool-result',
        call_id: result.callId,
        ...(result.output === undefined ? {} : { output: result.output as StreamJsonValue }),
        ...(result.error === undefined ? {} : { error: result.error }),
      });
    },

    source(source) {
      return part({
        type: 'source',
        id: source.id,
        ...(source.url === undefined ? {} : { url: source.url }),
        ...(source.title === undefined ? {} : { title: source.title }),
        ...(source.mediaType === undefined ? {} : { media_type: source.mediaType }),
        ...(source.filename === undefined ? {} : { filename: source.filename }),
      });
    },

    async end(final) {
      if (final !== undefined && final.length > 0) {
        if (closed) throw closedError();
        text += final;
        pending.push(encodeStreamText(final));
      }
      const error = failure();
      if (error !== undefined) throw error;
      if (closed) throw closedError();
      flush();
      closed = true;
      releaseTail(false);
      const finalSeq = chain.seq;
      const signature = signStream(d.signing, 'end', d.streamId, finalSeq, chain.hash);
      try {
        await transport.end({
          final_seq: finalSeq,
          transcript_hash: toBase64(chain.hash),
          signature: toBase64(signature),
        });
      } catch (error) {
        failed(error);
        throw error;
      }
      finish('done');
      return { streamId: d.streamId, text, deltas: finalSeq };
    },

    async abort(reason = 'aborted') {
      if (closed) return;
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      pending = [];
      const error = failure();
      if (error !== undefined) throw error;
      releaseTail(false); // written and flushed: the abort's signature covers it
      const bytes = splitUtf8(utf8(reason), STREAM_ABORT_REASON_MAX_BYTES)[0] ?? new Uint8Array(0);
      const n = chain.seq;
      const signature = signStream(d.signing, 'aborted', d.streamId, n, chain.hash, undefined, bytes);
      try {
        await transport.abort(toBase64(cipher.sealAbort(n, concatBytes(signature, bytes))));
      } catch (error) {
        failed(error);
        throw error;
      }
      finish('stopped');
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
