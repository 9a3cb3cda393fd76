/**
 * Batches delivery acknowledgements into `ack` frames: the ids finished in
 * one turn of the event loop leave together (one frame per up to
 * {@link ACK_FRAME_MAX_IDS} ids), so acks cost little next to the events
 * they answer. An ack that cannot be sent (no open connection with acks) is
 * dropped: the service still holds the delivery and sends it again, and the
 * agent's de-duplication acknowledges that copy without handling it twice.
 *
 * @module
 */
import { ACK_FRAME_MAX_IDS, ackFrame } from '../../core/protocol/ws-frames.js';

/** Sends a frame text on the open connection; false when there is none (or it negotiated no acks). */
export type AckSink = (text: string) => boolean;

/** The batcher. */
export class AckBatcher {
  readonly #send: AckSink;
  #ids: string[] = [];
  #scheduled = false;
  #sent = 0;
  #dropped = 0;

  constructor(send: AckSink) {
    this.#send = send;
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
    if (this.#ids.length >= ACK_FRAME_MAX_IDS) {
      this.flush();
      return;
    }
    if (this.#scheduled) return;
    this.#scheduled = true;
    // A yield, not a window: the ids finished in this turn leave together.
    setTimeout(() => this.flush(), 0);
  }

  /** Sends every queued id now. */
  flush(): void {
    this.#scheduled = false;
    while (this.#ids.length > 0) {
      const batch = this.#ids.splice(0, ACK_FRAME_MAX_IDS);
      if (this.#send(ackFrame(batch))) this.#sent += batch.length;
      else this.#dropped += batch.length;
    }
  }
}
