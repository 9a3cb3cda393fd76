/**
 * Batches delivery acknowledgements into `ack` frames: the ids finished
 * within `delayMs` (10 ms) leave together, or at once when `maxBatch` are
 * waiting (a quarter of the service's window, so the window never stalls on
 * a batch), so acks cost little next to the events they answer. An ack that cannot be sent (no open connection with acks) is
 * dropped: the service still holds the delivery and sends it again, and the
 * agent's de-duplication acknowledges that copy without handling it twice.
 *
 * @module
 */
import type { Clock, TimerHandle } from '../../core/clock.js';
import { ACK_FRAME_MAX_IDS, ackFrame } from '../../core/protocol/ws-frames.js';

/** How long finished ids wait for company before their frame leaves, ms. */
export const ACK_BATCH_DELAY_MS = 10;

/** Sends a frame text on the open connection; false when there is none (or it negotiated no acks). */
export type AckSink = (text: string) => boolean;

/** The batcher. */
export class AckBatcher {
  readonly #send: AckSink;
  readonly #clock: Clock;
  #ids: string[] = [];
  #timer: TimerHandle | undefined;
  /** Ids that make a batch leave at once. */
  maxBatch = ACK_FRAME_MAX_IDS;
  #sent = 0;
  #dropped = 0;

  constructor(send: AckSink, clock: Clock) {
    this.#send = send;
    this.#clock = clock;
  }

  /** Acks sent so far (ids). */
  get sent(): number {
    return this.#sent;
  }

  /** Acks dropped because no connection could take them (ids). */
  get dropped(): number {
    return this.#dropped;
  }

  /** Queues one delivery id; it leaves with the next batch. */
  add(deliveryId: string): void {
    this.#ids.push(deliveryId);
    if (this.#ids.length >= Math.min(this.maxBatch, ACK_FRAME_MAX_IDS)) {
      this.flush();
      return;
    }
    this.#timer ??= this.#clock.setTimeout(() => this.flush(), ACK_BATCH_DELAY_MS, { background: true });
  }

  /** Sends every queued id now. */
  flush(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#ids.length > 0) {
      const batch = this.#ids.splice(0, ACK_FRAME_MAX_IDS);
      if (this.#send(ackFrame(batch))) this.#sent += batch.length;
      else this.#dropped += batch.length;
    }
  }
}
