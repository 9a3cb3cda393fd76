/**
 * Flow control on one socket: whether reading is wanted paused, and whether
 * it actually is. Reading is paused only while the connection is open
 * (after `auth.ok`, so the auth answer is always read) and only on sockets
 * that have `pause()` / `resume()` (`ws`); the heartbeat's dead check is
 * suspended meanwhile, since pongs cannot be seen.
 *
 * @module
 */
import type { Logger } from '../../core/logger.js';
import type { Heartbeat } from './heartbeat.js';
import type { WebSocketLike } from './socket.js';

/** Read pausing of one socket. */
export class ReadPause {
  readonly #socket: WebSocketLike | undefined;
  readonly #logger: Logger;
  #wanted = false;
  #paused = false;

  constructor(socket: WebSocketLike | undefined, logger: Logger) {
    this.#socket = socket;
    this.#logger = logger;
  }

  /** True when the socket can pause (`ws`). */
  get supported(): boolean {
    return typeof this.#socket?.pause === 'function' && typeof this.#socket.resume === 'function';
  }

  /** True while reading is actually paused. */
  get paused(): boolean {
    return this.#paused;
  }

  /**
   * Records the wish and applies it when `open`. Returns false when the
   * socket cannot pause (the wish is then ignored).
   */
  want(paused: boolean, open: boolean, heartbeat: Heartbeat | undefined): boolean {
    this.#wanted = paused;
    if (!this.supported) return false;
    if (open) this.apply(heartbeat);
    return true;
  }

  /** Applies the recorded wish (called on `auth.ok` and by {@link ReadPause.want}). */
  apply(heartbeat: Heartbeat | undefined): void {
    if (!this.supported || this.#wanted === this.#paused) return;
    try {
      if (this.#wanted) {
        this.#socket?.pause?.();
        heartbeat?.suspend();
      } else {
        this.#socket?.resume?.();
        heartbeat?.resume();
      }
      this.#paused = this.#wanted;
      this.#logger.debug(this.#paused ? 'WebSocket reading paused' : 'WebSocket reading resumed');
    } catch {
      // A socket that cannot pause or resume any more is ending; its close ends the connection.
    }
  }

  /** Reads again for good (closing: the close handshake and last frames must be read). */
  release(): void {
    this.#wanted = false;
    if (!this.#paused) return;
    this.#paused = false;
    try {
      this.#socket?.resume?.();
    } catch {
      // Ending anyway.
    }
    this.#logger.debug('WebSocket reading resumed to close');
  }
}
