/**
 * A stream over the agent's WebSocket: `stream.start` → `stream.accepted`,
 * `stream.delta` frames, `stream.end` / `stream.abort` → `stream.closed`;
 * `stream.error` at any time ends it with a {@link StreamError}. Frames go
 * out only on the open connection: when it is gone the stream fails
 * (`TRANSPORT_CLOSED`), it is never resumed on the next connection.
 *
 * @module
 */
import { TransportError } from '../../core/errors/transport-error.js';
import type { AmsError } from '../../core/errors/base.js';
import type { StreamError } from '../../core/errors/stream-error.js';
import { STREAM_FRAMES } from '../../core/protocol/service-names.js';
import type { ServiceStreamFrame } from '../../core/protocol/stream-frames.js';
import {
  streamErrorOf,
  type StreamEndFields,
  type StreamTransport,
} from '../../messaging/stream-transport.js';

/** What the WebSocket transport needs of the dispatcher. */
export interface FrameSocket {
  sendFrame(text: string): boolean;
  readonly bufferedAmount: number;
}

/** Routes the service's stream frames to the stream they name. */
export class StreamFrameRouter {
  readonly #routes = new Map<string, { frame: (f: ServiceStreamFrame) => void; lost: () => void }>();

  /** Routes frames of `streamId` to `frame` until {@link StreamFrameRouter.remove}; `lost` when the socket closes. */
  add(streamId: string, frame: (f: ServiceStreamFrame) => void, lost: () => void): void {
    this.#routes.set(streamId, { frame, lost });
  }

  /** The WebSocket closed: every open stream is lost (never resumed on the next connection). */
  socketClosed(): void {
    for (const route of [...this.#routes.values()]) route.lost();
    this.#routes.clear();
  }

  /** Stops routing `streamId`. */
  remove(streamId: string): void {
    this.#routes.delete(streamId);
  }

  /** Hands a frame to its stream; false when no stream of this agent has that id. */
  route(frame: ServiceStreamFrame): boolean {
    const route = this.#routes.get(frame.stream_id);
    route?.frame(frame);
    return route !== undefined;
  }
}

const POLL_MS = 2;

/** A stream over the agent's WebSocket. */
export class WsStreamTransport implements StreamTransport {
  readonly #id: string;
  readonly #socket: FrameSocket;
  readonly #router: StreamFrameRouter;
  #failure: StreamError | undefined;
  #broken: AmsError | undefined;
  readonly #listeners: ((e: AmsError) => void)[] = [];
  #waiting: { resolve: () => void; reject: (e: unknown) => void } | undefined;

  constructor(streamId: string, socket: FrameSocket, router: StreamFrameRouter) {
    this.#id = streamId;
    this.#socket = socket;
    this.#router = router;
    router.add(
      streamId,
      (frame) => this.#onFrame(frame),
      () => this.#lost(),
    );
  }

  get failure(): AmsError | undefined {
    return this.#failure ?? this.#broken;
  }

  get bufferedAmount(): number {
    return this.#socket.bufferedAmount;
  }

  onFailure(listener: (error: AmsError) => void): void {
    this.#listeners.push(listener);
  }

  start(conversationId: string, wireEnvelope: string): Promise<void> {
    return this.#exchange({
      type: STREAM_FRAMES.start,
      stream_id: this.#id,
      conversation_id: conversationId,
      wire_envelope: wireEnvelope,
    });
  }

  delta(seq: number, ciphertext: string): void {
    if (this.#failure !== undefined || this.#broken !== undefined) return;
    const text = `{"type":"${STREAM_FRAMES.delta}","stream_id":"${this.#id}","seq":${seq},"ciphertext":"${ciphertext}"}`;
    if (!this.#socket.sendFrame(text)) this.#lost();
  }

  async drained(lowWaterMark: number): Promise<void> {
    while (
      this.#failure === undefined &&
      this.#broken === undefined &&
      this.#socket.bufferedAmount > lowWaterMark
    )
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }

  end(fields: StreamEndFields): Promise<void> {
    return this.#exchange({ type: STREAM_FRAMES.end, stream_id: this.#id, ...fields });
  }

  abort(ciphertext: string): Promise<void> {
    return this.#exchange({ type: STREAM_FRAMES.abort, stream_id: this.#id, ciphertext });
  }

  /** Sends a frame and waits for the service's answer (`accepted` / `closed`) or its error. */
  #exchange(frame: Record<string, unknown>): Promise<void> {
    const error = this.#failure ?? this.#broken;
    if (error !== undefined) return Promise.reject(error);
    const answered = new Promise<void>((resolve, reject) => (this.#waiting = { resolve, reject }));
    if (!this.#socket.sendFrame(JSON.stringify(frame))) this.#lost();
    return answered;
  }

  #lost(): void {
    if (this.#failure !== undefined || this.#broken !== undefined) return;
    this.#broken = new TransportError({
      code: 'TRANSPORT_CLOSED',
      message: 'The WebSocket is not open: the stream is lost (streams are not resumed or retried).',
    });
    this.#router.remove(this.#id);
    this.#waiting?.reject(this.#broken);
    this.#waiting = undefined;
    for (const listener of this.#listeners) listener(this.#broken);
  }

  #onFrame(frame: ServiceStreamFrame): void {
    if (frame.type === STREAM_FRAMES.error) {
      if (this.#failure !== undefined) return;
      this.#failure = streamErrorOf(this.#id, frame.reason);
      this.#router.remove(this.#id);
      this.#waiting?.reject(this.#failure);
      this.#waiting = undefined;
      for (const listener of this.#listeners) listener(this.#failure);
      return;
    }
    if (frame.type === STREAM_FRAMES.closed) this.#router.remove(this.#id);
    this.#waiting?.resolve();
    this.#waiting = undefined;
  }
}
