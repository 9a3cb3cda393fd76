/**
 * The human side of streamed replies: opens the sealed stream key of a
 * `stream.start` (an ordinary envelope, signed by the agent, bound to the
 * conversation and to the frame type), then takes deltas strictly in order
 * (seq 1, 2, …), opens each under the stream key, appends its text, keeps the
 * transcript hash, and on `stream.end` checks the final seq, the transcript
 * and the agent's signature before emitting the full text.
 *
 * A stream fails (event `streamError`, then its later frames are ignored) when:
 *
 * | `reason` | Cause |
 * |---|---|
 * | `invalid_start` | the key envelope does not open, or is not a `stream.open` for this stream |
 * | `duplicate` | a delta with a seq already seen |
 * | `out_of_order` | a delta whose seq skips ahead (reordered or dropped deltas) |
 * | `tampered` | a delta or the transcript does not authenticate, or the end counts fewer deltas than received |
 * | `truncated` | the end counts more deltas than received, or the connection ended mid-stream |
 * | `bad_signature` | the end's signature is not the agent's |
 * | `aborted` | the agent aborted (its sealed reason in `detail`) |
 * | a stream error value | the service ended it (`stream.error`) |
 *
 * @module
 */
import type { AmsError } from '../../core/errors/base.js';
import type { StreamErrorValue } from '../../core/errors/codes.js';
import { CryptoError } from '../../core/errors/crypto-error.js';
import { isAmsError } from '../../core/errors/guards.js';
import { fromBase64, fromUtf8 } from '../../core/encoding.js';
import type { Logger } from '../../core/logger.js';
import { STREAM_FRAMES } from '../../core/protocol/service-names.js';
import { parseUserStreamFrame, type UserStreamFrame } from '../../core/protocol/stream-frames.js';
import {
  streamCipher,
  StreamTranscript,
  verifyStreamEnd,
  type StreamCipher,
} from '../../crypto/stream/stream-crypto.js';
import { streamKeyOf } from '../../crypto/stream/stream-start.js';
import { streamErrorOf } from '../../messaging/stream-transport.js';

/** Why a received stream failed. */
export type StreamFailureReason =
  | StreamErrorValue
  | 'invalid_start'
  | 'duplicate'
  | 'out_of_order'
  | 'tampered'
  | 'truncated'
  | 'bad_signature'
  | 'aborted';

/** A stream started (its key opened and verified). */
export interface StreamStarted {
  readonly streamId: string;
  readonly conversationId: string;
  /** The signed sender (the agent). */
  readonly senderId: string;
}

/** One delta, opened and in order. */
export interface StreamDelta extends StreamStarted {
  /** 1, 2, … */
  readonly seq: number;
  /** This delta's text. */
  readonly delta: string;
  /** The text so far (not verified as a whole until `streamEnd`). */
  readonly text: string;
}

/** A stream ended and verified: every delta, in order, signed by the agent. */
export interface StreamEnded extends StreamStarted {
  /** The full text. */
  readonly text: string;
  /** How many deltas carried it. */
  readonly deltas: number;
}

/** A stream that failed: broken, tampered, aborted, or ended by the service. */
export interface StreamFailure {
  readonly streamId: string;
  /** Undefined when the stream's start never opened. */
  readonly conversationId: string | undefined;
  readonly senderId: string | undefined;
  readonly reason: StreamFailureReason;
  /** The text received before the failure (unverified). */
  readonly text: string;
  /** The agent's reason of an abort. */
  readonly detail: string | undefined;
  /** The error: a `StreamError` from the service, a `CryptoError` for a broken stream; undefined for an abort. */
  readonly error: AmsError | undefined;
}

/** What the receiver emits. */
export interface StreamReceiverEvents {
  streamStart(info: StreamStarted): void;
  streamDelta(info: StreamDelta): void;
  streamEnd(info: StreamEnded): void;
  streamError(failure: StreamFailure): void;
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
}

interface Live {
  readonly id: string;
  conversationId: string | undefined;
  senderId: string | undefined;
  opening: boolean;
  queued: UserStreamFrame[];
  cipher: StreamCipher | undefined;
  signingKey: Uint8Array | undefined;
  transcript: StreamTranscript;
  text: string;
}

const FINISHED_MEMORY = 4_096;

function broken(message: string): CryptoError {
  return new CryptoError({ code: 'INVALID_ENVELOPE', message });
}

/** Receives the streams of one user connection set. */
export class StreamReceiver {
  readonly #d: StreamReceiverDeps;
  readonly #live = new Map<string, Live>();
  readonly #finished = new Set<string>();

  constructor(deps: StreamReceiverDeps) {
    this.#d = deps;
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
      transcript: new StreamTranscript(id),
      text: '',
    };
    this.#live.set(id, live);
    try {
      const opened = await this.#d.openStart(frame.wire_envelope, frame.conversation_id);
      const key = streamKeyOf(opened, id);
      if (key === undefined) throw broken('The stream key envelope is not a stream.open of this stream.');
      live.conversationId = frame.conversation_id;
      live.senderId = opened.senderId;
      live.cipher = streamCipher(key, id);
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
      case STREAM_FRAMES.abort: {
        const sealed = fromBase64(frame.ciphertext);
        const reason = sealed === undefined ? undefined : live.cipher?.openAbort(live.transcript.seq, sealed);
        if (reason === undefined)
          return this.#fail(live, 'tampered', broken('The abort does not authenticate.'));
        return this.#fail(live, 'aborted', undefined, fromUtf8(reason) ?? '');
      }
      case STREAM_FRAMES.error:
        return this.#fail(live, frame.reason, streamErrorOf(live.id, frame.reason));
      case STREAM_FRAMES.start:
        return;
    }
  }

  #delta(live: Live, seq: number, ciphertext: string): void {
    const expected = live.transcript.seq + 1;
    if (seq < expected) return this.#fail(live, 'duplicate', broken(`Delta ${seq} arrived again.`));
    if (seq > expected)
      return this.#fail(live, 'out_of_order', broken(`Delta ${seq} arrived before ${expected}.`));
    const sealed = fromBase64(ciphertext);
    const plain = sealed === undefined ? undefined : live.cipher?.openDelta(seq, sealed);
    const delta = plain === undefined ? undefined : fromUtf8(plain);
    if (sealed === undefined || delta === undefined)
      return this.#fail(live, 'tampered', broken(`Delta ${seq} does not authenticate.`));
    live.transcript.add(seq, sealed);
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

  #end(live: Live, frame: Extract<UserStreamFrame, { type: 'stream.end' }>): void {
    const verdict = verifyStreamEnd(
      live.signingKey!,
      {
        streamId: live.id,
        finalSeq: frame.final_seq,
        transcriptHash: fromBase64(frame.transcript_hash)!,
        signature: fromBase64(frame.signature)!,
      },
      live.transcript,
    );
    if (verdict === 'truncated') {
      const short = frame.final_seq > live.transcript.seq;
      return this.#fail(
        live,
        short ? 'truncated' : 'tampered',
        broken(`The end counts ${frame.final_seq} deltas; ${live.transcript.seq} arrived.`),
      );
    }
    if (verdict === 'transcript') return this.#fail(live, 'tampered', broken('The transcript hash differs.'));
    if (verdict === 'signature')
      return this.#fail(
        live,
        'bad_signature',
        new CryptoError({
          code: 'DECRYPT_FAILURE',
          reason: 'signature',
          message: 'The end is not signed by the sender.',
        }),
      );
    this.#finish(live);
    this.#d.emit.streamEnd({
      streamId: live.id,
      conversationId: live.conversationId!,
      senderId: live.senderId!,
      text: live.text,
      deltas: live.transcript.seq,
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
      detail,
      error,
    });
  }

  #finish(live: Live): void {
    this.#live.delete(live.id);
    this.#finished.add(live.id);
    if (this.#finished.size > FINISHED_MEMORY) {
      const oldest = this.#finished.values().next().value;
      if (oldest !== undefined) this.#finished.delete(oldest);
    }
  }
}
