/**
 * The human side of streamed replies (stream v2, docs/envelope.md): opens the
 * sealed stream key of a `stream.start` (an ordinary envelope, signed by the
 * agent, bound to the conversation and to the frame type), then takes deltas
 * strictly in order (seq 1, 2, …), opens each under the stream key and adds
 * its text to the keyed hash chain. **Nothing is shown before the agent's
 * signature covers it**: deltas wait until a checkpoint (a signature inside a
 * later delta), the end or the abort verifies over the chain, then
 * `streamDelta` fires for each of them in order. A group member holds the
 * stream key and can seal a delta or an abort that opens; it cannot sign.
 *
 * A stream fails (event `streamError`, then its later frames are ignored) when:
 *
 * | `reason` | Cause |
 * |---|---|
 * | `invalid_start` | the key envelope does not open, is not a `stream.open` v2 for this stream |
 * | `duplicate` | a delta with a seq already seen |
 * | `out_of_order` | a delta whose seq skips ahead (reordered or dropped deltas) |
 * | `tampered` | a delta or the chain does not authenticate, more than 256 deltas came without a checkpoint, or the end counts fewer deltas than received |
 * | `truncated` | the end counts more deltas than received, or the connection ended mid-stream |
 * | `bad_signature` | a checkpoint, the end or the abort is not signed by the agent (text forged by a key holder) |
 * | `aborted` | the agent aborted (its signed reason in `detail`) |
 * | `replayed` | a stream id this client already finished (remembered in the replay store, 25 h) |
 * | `deadline` | the stream did not end within the client's own deadline (`streamDeadlineMs`) |
 * | a stream error value | the service ended it (`stream.error`) |
 *
 * Typed parts (a start whose signed payload carries `parts`): the text is
 * read by a {@link StreamPartsReader} as deltas are shown; `streamDelta`
 * carries the text only, `streamPart` each step, tool call or result,
 * source and reasoning run as it is created or updated, and a record that
 * does not parse is dropped with `streamPartDropped`, the stream going on.
 *
 * @module
 */
import type { Clock, TimerHandle } from '../../core/clock.js';
import type { AmsError } from '../../core/errors/base.js';
import type { StreamErrorValue } from '../../core/errors/codes.js';
import { CryptoError } from '../../core/errors/crypto-error.js';
import { isAmsError } from '../../core/errors/guards.js';
import { fromBase64, fromUtf8 } from '../../core/encoding.js';
import type { Logger } from '../../core/logger.js';
import { STREAM_FRAMES } from '../../core/protocol/service-names.js';
import { parseUserStreamFrame, type UserStreamFrame } from '../../core/protocol/stream-frames.js';
import { STREAM_LIMITS } from '../../core/limits/streams.js';
import { MESSAGE_DEDUP_MEMORY_MS } from '../../crypto/freshness.js';
import {
  STREAM_CHECKPOINT_MAX_DELTAS,
  STREAM_CRYPTO_VERSION,
  streamCipher,
  StreamChain,
  unframeStreamAbort,
  unframeStreamDelta,
  verifyStreamEnd,
  verifyStreamSignature,
  type StreamCipher,
} from '../../crypto/stream/stream-crypto.js';
import { streamKeyOf } from '../../crypto/stream/stream-start.js';
import { streamErrorOf } from '../../messaging/stream-transport.js';
import { ValidationError } from '../../core/errors/validation-error.js';
import {
  StreamPartsReader,
  type StreamPart,
  type StreamPartDropReason,
  type StreamPartsChange,
} from '../../core/protocol/stream-parts.js';

/** Why a received stream failed. */
export type StreamFailureReason =
  | StreamErrorValue
  | 'invalid_start'
  | 'duplicate'
  | 'out_of_order'
  | 'tampered'
  | 'truncated'
  | 'bad_signature'
  | 'aborted'
  | 'replayed'
  | 'deadline';

/**
 * How long a received stream may last before the client ends it itself
 * (`deadline`): the service's 5-minute limit plus 30 s, so only a service
 * that never ends a stream hits it.
 */
export const STREAM_DEADLINE_MS = STREAM_LIMITS.TOTAL_MS + 30_000;

/**
 * Where the ids of finished streams are remembered, so a stream captured and
 * replayed later (after a restart, with a persistent store) is refused
 * (`replayed`). Keys are opaque strings; each is kept until `expiresAtMs`
 * (25 h after it was added: longer than a `stream.start` envelope stays inside
 * the acceptance window). Methods may return a value or a promise.
 */
export interface StreamReplayStore {
  /** True when `key` was added and has not expired. */
  has(key: string): boolean | Promise<boolean>;
  /** Remembers `key` until `expiresAtMs`. */
  add(key: string, expiresAtMs: number): void | Promise<void>;
}

/** The default {@link StreamReplayStore}: in this process's memory, bounded (oldest forgotten first). */
export class MemoryStreamReplayStore implements StreamReplayStore {
  readonly #clock: Clock;
  readonly #max: number;
  readonly #until = new Map<string, number>();

  constructor(clock: Clock, max = 10_000) {
    this.#clock = clock;
    this.#max = Math.max(1, Math.floor(max));
  }

  has(key: string): boolean {
    const until = this.#until.get(key);
    return until !== undefined && until > this.#clock.now();
  }

  add(key: string, expiresAtMs: number): void {
    this.#until.delete(key);
    this.#until.set(key, expiresAtMs);
    while (this.#until.size > this.#max) this.#until.delete(this.#until.keys().next().value!);
  }
}

/** A stream started (its key opened and verified). */
export interface StreamStarted {
  readonly streamId: string;
  readonly conversationId: string;
  /** The signed sender (the agent). */
  readonly senderId: string;
}

/** One delta, opened, in order, and covered by the agent's signature. */
export interface StreamDelta extends StreamStarted {
  /** 1, 2, … */
  readonly seq: number;
  /** This delta's text. */
  readonly delta: string;
  /** The text so far (every delta of it signed by the agent; complete only at `streamEnd`). */
  readonly text: string;
}

/** A stream ended and verified: every delta, in order, signed by the agent. */
export interface StreamEnded extends StreamStarted {
  /** The full text. */
  readonly text: string;
  /** How many deltas carried it. */
  readonly deltas: number;
  /** The reply's parts in order: text runs, reasoning, steps (latest status), tools (with results), sources. */
  readonly parts: readonly StreamPart[];
}

/** A typed part was added or updated (a step's new status, a tool call's result), signed by the agent. */
export interface StreamPartUpdate extends StreamStarted {
  /** The delta that completed it. */
  readonly seq: number;
  /** Its place in `parts` (a step or tool keeps its place when updated). */
  readonly index: number;
  /** The part, as it is now. */
  readonly part: StreamPart;
  /** Every part so far, in order (as of the end of delta `seq`). */
  readonly parts: readonly StreamPart[];
  /** The text so far (written before this part). */
  readonly text: string;
}

/** A part record was dropped (the stream goes on): it did not parse, broke a limit or contradicted an earlier part. */
export interface StreamPartDropped extends StreamStarted {
  /** The delta where it ended. */
  readonly seq: number;
  readonly reason: StreamPartDropReason;
  /** The problem (never the record's content). */
  readonly error: ValidationError;
}

/** A stream that failed: broken, tampered, aborted, or ended by the service. */
export interface StreamFailure {
  readonly streamId: string;
  /** Undefined when the stream's start never opened. */
  readonly conversationId: string | undefined;
  readonly senderId: string | undefined;
  readonly reason: StreamFailureReason;
  /** The text shown before the failure (signed by the agent; deltas not yet covered by a signature are dropped). */
  readonly text: string;
  /** The parts shown before the failure, in order. */
  readonly parts: readonly StreamPart[];
  /** The agent's reason of an abort. */
  readonly detail: string | undefined;
  /**
   * The error: a `StreamError` from the service, a `CryptoError` for a broken, forged, replayed or
   * overdue stream; undefined for an abort.
   */
  readonly error: AmsError | undefined;
}

/** What the receiver emits. */
export interface StreamReceiverEvents {
  streamStart(info: StreamStarted): void;
  streamDelta(info: StreamDelta): void;
  streamEnd(info: StreamEnded): void;
  streamError(failure: StreamFailure): void;
  streamPart(update: StreamPartUpdate): void;
  streamPartDropped(dropped: StreamPartDropped): void;
}

/** What the receiver needs. */
export interface StreamReceiverDeps {
  /** Opens the `stream.start` envelope as a live delivery of that frame type in `conversationId`. */
  openStart(
    wireEnvelope: string,
    conversationId: string,
  ): Promise<{ senderId: string; messageId: string; payload: Readonly<Record<string, unknown>> }>;
  /** The sender's current Ed25519 key. */
  signingKey(senderId: string): Promise<Uint8Array | undefined>;
  readonly emit: StreamReceiverEvents;
  readonly log: Logger;
  /** Time and timers of the deadline. */
  readonly clock: Clock;
  /** The client's own deadline of a stream. @defaultValue {@link STREAM_DEADLINE_MS} */
  readonly deadlineMs?: number | undefined;
  /** Finished stream ids. @defaultValue a {@link MemoryStreamReplayStore} */
  readonly replayStore?: StreamReplayStore | undefined;
}

interface Live {
  readonly id: string;
  conversationId: string | undefined;
  senderId: string | undefined;
  opening: boolean;
  queued: UserStreamFrame[];
  cipher: StreamCipher | undefined;
  signingKey: Uint8Array | undefined;
  chain: StreamChain | undefined;
  /** Opened deltas not yet covered by a signature. */
  unsigned: { readonly seq: number; readonly delta: string }[];
  /** Seq of the last delta received. */
  seq: number;
  text: string;
  /** Reads typed parts (a parts stream); undefined for a text-only stream. */
  reader: StreamPartsReader | undefined;
  deadline: TimerHandle | undefined;
}

const FINISHED_MEMORY = 4_096;

function broken(message: string): CryptoError {
  return new CryptoError({ code: 'INVALID_ENVELOPE', message });
}

function notSigned(what: string): CryptoError {
  return new CryptoError({
    code: 'DECRYPT_FAILURE',
    reason: 'signature',
    message: `${what} is not signed by the sender.`,
  });
}

/** The replay-store key of a finished stream: signed sender and stream id. */
function replayKey(senderId: string, streamId: string): string {
  return `stream\u0000${senderId}\u0000${streamId}`;
}

/** Receives the streams of one user connection set. */
export class StreamReceiver {
  readonly #d: StreamReceiverDeps;
  readonly #live = new Map<string, Live>();
  readonly #finished = new Set<string>();
  readonly #replay: StreamReplayStore;

  constructor(deps: StreamReceiverDeps) {
    this.#d = deps;
    this.#replay = deps.replayStore ?? new MemoryStreamReplayStore(deps.clock);
  }

  /** Open streams. */
  get openCount(): number {
    return this.#live.size;
  }

  /** Takes one `stream.*` frame as received. */
  receive(raw: Readonly<Record<string, unknown>>): void {
    const frame = parseUserStreamFrame(raw);
    if (frame === undefined) {
      const id = raw['stream_id'];
      const live = typeof id === 'string' ? this.#live.get(id) : undefined;
      if (live !== undefined) this.#fail(live, 'tampered', broken('A malformed stream frame arrived.'));
      else this.#d.log.warn('user socket: dropped a malformed stream frame');
      return;
    }
    if (frame.type === STREAM_FRAMES.start) {
      void this.#start(frame);
      return;
    }
    const live = this.#live.get(frame.stream_id);
    if (live === undefined) {
      if (!this.#finished.has(frame.stream_id))
        this.#d.log.debug('user socket: a frame of an unknown stream was ignored', { type: frame.type });
      return;
    }
    if (live.opening) live.queued.push(frame);
    else this.#handle(live, frame);
  }

  /** The connection ended: every open stream is cut short (streams are not resumed). */
  connectionLost(): void {
    for (const live of [...this.#live.values()])
      this.#fail(live, 'truncated', broken('The connection ended before the stream did.'));
  }

  async #start(frame: Extract<UserStreamFrame, { type: 'stream.start' }>): Promise<void> {
    const id = frame.stream_id;
    if (this.#live.has(id) || this.#finished.has(id)) {
      this.#d.log.warn('user socket: a stream id was started twice; ignored');
      return;
    }
    const live: Live = {
      id,
      conversationId: undefined,
      senderId: undefined,
      opening: true,
      queued: [],
      cipher: undefined,
      signingKey: undefined,
      chain: undefined,
      unsigned: [],
      seq: 0,
      text: '',
      reader: undefined,
      deadline: undefined,
    };
    this.#live.set(id, live);
    const { clock } = this.#d;
    live.deadline = clock.setTimeout(
      () => this.#fail(live, 'deadline', broken('The stream did not end within the deadline.')),
      this.#d.deadlineMs ?? STREAM_DEADLINE_MS,
      { background: true },
    );
    try {
      const opened = await this.#d.openStart(frame.wire_envelope, frame.conversation_id);
      const key = streamKeyOf(opened, id);
      if (key === undefined) throw broken('The stream key envelope is not a stream.open of this stream.');
      if (opened.payload['v'] !== STREAM_CRYPTO_VERSION)
        throw broken(`The stream is not stream v${STREAM_CRYPTO_VERSION} (deltas not signed by the sender).`);
      live.conversationId = frame.conversation_id;
      live.senderId = opened.senderId;
      const parts = opened.payload['parts'];
      if (typeof parts === 'number' && Number.isSafeInteger(parts) && parts >= 1)
        live.reader = new StreamPartsReader();
      if (await this.#replay.has(replayKey(opened.senderId, id))) {
        this.#fail(live, 'replayed', broken('This stream was received and finished before.'));
        return;
      }
      live.cipher = streamCipher(key, id);
      live.chain = new StreamChain(live.cipher.chainStart);
      live.signingKey = await this.#d.signingKey(opened.senderId);
      if (live.signingKey === undefined) throw broken('The sender has no signing key.');
    } catch (err) {
      this.#fail(
        live,
        'invalid_start',
        isAmsError(err) ? err : broken('The stream key envelope did not open.'),
      );
      return;
    }
    if (this.#live.get(id) !== live) return;
    live.opening = false;
    this.#d.emit.streamStart({
      streamId: id,
      conversationId: frame.conversation_id,
      senderId: live.senderId,
    });
    for (const queued of live.queued.splice(0)) if (this.#live.get(id) === live) this.#handle(live, queued);
  }

  #handle(live: Live, frame: UserStreamFrame): void {
    switch (frame.type) {
      case STREAM_FRAMES.delta:
        return this.#delta(live, frame.seq, frame.ciphertext);
      case STREAM_FRAMES.end:
        return this.#end(live, frame);
      case STREAM_FRAMES.abort:
        return this.#abort(live, frame.ciphertext);
      case STREAM_FRAMES.error:
        return this.#fail(live, frame.reason, streamErrorOf(live.id, frame.reason));
      case STREAM_FRAMES.start:
        return;
    }
  }

  #delta(live: Live, seq: number, ciphertext: string): void {
    const expected = live.seq + 1;
    if (seq < expected) return this.#fail(live, 'duplicate', broken(`Delta ${seq} arrived again.`));
    if (seq > expected)
      return this.#fail(live, 'out_of_order', broken(`Delta ${seq} arrived before ${expected}.`));
    const sealed = fromBase64(ciphertext);
    const framed = sealed === undefined ? undefined : live.cipher!.openDelta(seq, sealed);
    const parts = framed === undefined ? undefined : unframeStreamDelta(framed);
    const delta = parts === undefined ? undefined : fromUtf8(parts.text);
    if (parts === undefined || delta === undefined)
      return this.#fail(live, 'tampered', broken(`Delta ${seq} does not authenticate.`));
    live.seq = seq;
    const hash = live.chain!.add(seq, parts.text);
    live.unsigned.push({ seq, delta });
    if (parts.signature === undefined) {
      if (live.unsigned.length >= STREAM_CHECKPOINT_MAX_DELTAS)
        this.#fail(live, 'tampered', broken(`${live.unsigned.length} deltas came without a checkpoint.`));
      return;
    }
    if (!verifyStreamSignature(live.signingKey!, 'checkpoint', live.id, seq, hash, parts.signature))
      return this.#fail(live, 'bad_signature', notSigned(`The checkpoint of delta ${seq}`));
    this.#release(live);
  }

  /** Shows the deltas a verified signature now covers. */
  #release(live: Live): void {
    if (live.reader !== undefined) {
      for (const { seq, delta } of live.unsigned.splice(0)) this.#parts(live, seq, live.reader.push(delta));
      return;
    }
    for (const { seq, delta } of live.unsigned.splice(0)) {
      live.text += delta;
      this.#d.emit.streamDelta({
        streamId: live.id,
        conversationId: live.conversationId!,
        senderId: live.senderId!,
        seq,
        delta,
        text: live.text,
      });
    }
  }

  /**
   * Shows what one delta of a parts stream changed, in the order written: text as `streamDelta`
   * (text on both sides of a part gives two with the same seq), other parts as `streamPart`;
   * then what was dropped.
   */
  #parts(live: Live, seq: number, change: StreamPartsChange): void {
    const base = { streamId: live.id, conversationId: live.conversationId!, senderId: live.senderId! };
    let snapshot: readonly StreamPart[] | undefined;
    for (const { index, part, added } of change.updated) {
      if (part.type === 'text') {
        if (added === undefined || added.length === 0) continue;
        live.text += added;
        this.#d.emit.streamDelta({ ...base, seq, delta: added, text: live.text });
        continue;
      }
      snapshot ??= live.reader!.parts;
      this.#d.emit.streamPart({ ...base, seq, index, part, parts: snapshot, text: live.text });
    }
    for (const { reason, message } of change.dropped) {
      const error = new ValidationError({ message, issues: [{ path: ['part'], message: reason }] });
      this.#d.emit.streamPartDropped({ ...base, seq, reason, error });
    }
  }

  #partsOf(live: Live): readonly StreamPart[] {
    if (live.reader !== undefined) return live.reader.parts;
    return live.text.length === 0 ? [] : [{ type: 'text', text: live.text }];
  }

  #abort(live: Live, ciphertext: string): void {
    const sealed = fromBase64(ciphertext);
    const framed = sealed === undefined ? undefined : live.cipher!.openAbort(live.seq, sealed);
    const parts = framed === undefined ? undefined : unframeStreamAbort(framed);
    const reason = parts === undefined ? undefined : fromUtf8(parts.reason);
    if (parts === undefined || reason === undefined)
      return this.#fail(live, 'tampered', broken('The abort does not authenticate.'));
    const signed = verifyStreamSignature(
      live.signingKey!,
      'aborted',
      live.id,
      live.seq,
      live.chain!.hash,
      parts.signature,
      undefined,
      parts.reason,
    );
    if (!signed) return this.#fail(live, 'bad_signature', notSigned('The abort'));
    this.#release(live);
    this.#fail(live, 'aborted', undefined, reason);
  }

  #end(live: Live, frame: Extract<UserStreamFrame, { type: 'stream.end' }>): void {
    const verdict = verifyStreamEnd(
      live.signingKey!,
      {
        streamId: live.id,
        finalSeq: frame.final_seq,
        transcriptHash: fromBase64(frame.transcript_hash)!,
        signature: fromBase64(frame.signature)!,
      },
      live.chain!,
    );
    if (verdict === 'truncated') {
      const short = frame.final_seq > live.seq;
      return this.#fail(
        live,
        short ? 'truncated' : 'tampered',
        broken(`The end counts ${frame.final_seq} deltas; ${live.seq} arrived.`),
      );
    }
    if (verdict === 'transcript') return this.#fail(live, 'tampered', broken('The transcript hash differs.'));
    if (verdict === 'signature') return this.#fail(live, 'bad_signature', notSigned('The end'));
    this.#release(live);
    if (live.reader !== undefined) this.#parts(live, live.seq, live.reader.finish());
    this.#finish(live);
    this.#d.emit.streamEnd({
      streamId: live.id,
      conversationId: live.conversationId!,
      senderId: live.senderId!,
      text: live.text,
      deltas: live.seq,
      parts: this.#partsOf(live),
    });
  }

  #fail(live: Live, reason: StreamFailureReason, error: AmsError | undefined, detail?: string): void {
    if (this.#live.get(live.id) !== live) return;
    this.#finish(live);
    this.#d.emit.streamError({
      streamId: live.id,
      conversationId: live.conversationId,
      senderId: live.senderId,
      reason,
      text: live.text,
      parts: this.#partsOf(live),
      detail,
      error,
    });
  }

  #finish(live: Live): void {
    this.#live.delete(live.id);
    if (live.deadline !== undefined) this.#d.clock.clearTimeout(live.deadline);
    if (live.senderId !== undefined) {
      const key = replayKey(live.senderId, live.id);
      const expiresAt = this.#d.clock.now() + MESSAGE_DEDUP_MEMORY_MS;
      void Promise.resolve()
        .then(() => this.#replay.add(key, expiresAt))
        .catch(() => this.#d.log.warn('streams: the replay store did not take a finished stream id'));
    }
    this.#finished.add(live.id);
    if (this.#finished.size > FINISHED_MEMORY) {
      const oldest = this.#finished.values().next().value;
      if (oldest !== undefined) this.#finished.delete(oldest);
    }
  }
}
