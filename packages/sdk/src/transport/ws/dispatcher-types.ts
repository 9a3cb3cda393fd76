/**
 * The public shape of the WebSocket dispatcher (see `dispatcher.ts`).
 *
 * @module
 */
import type { WsDispatcherEventName, WsDispatcherEvents } from './events.js';
import type { WsState } from './states.js';

/** A listener of the dispatcher's event `E`. */
export type WsDispatcherListener<E extends WsDispatcherEventName> = (...args: WsDispatcherEvents[E]) => void;

/** The dispatcher. */
export interface WsDispatcher {
  /** Current state. */
  readonly state: WsState;
  /**
   * Starts connecting (idempotent). Resolves on the first `open`; rejects with
   * the fatal error, or a TRANSPORT_CLOSED error when `close()` comes first.
   */
  start(): Promise<void>;
  /** Closes gracefully (code 1000) and stops reconnecting; resolves once the socket is gone. */
  close(): Promise<void>;
  /**
   * Sends `auth.renew` with a new access token on the open connection; a
   * static `token` is replaced for later reconnects too.
   *
   * @throws {@link TransportError} `TRANSPORT_CLOSED` when not open;
   * {@link ValidationError} for an empty or oversize token.
   */
  renew(accessToken: string): void;
  /**
   * Flow control: stop (`true`) or restart reading frames. Applies to the open
   * connection and, while wanted, to later ones once they are authenticated.
   * Returns false when the current socket has no `pause()` / `resume()`.
   */
  setReadPaused(paused: boolean): boolean;
  /** True while the current socket's reading is paused. */
  readonly readPaused: boolean;
  /**
   * Acknowledges one delivery (its `delivery_id`) once its event is done
   * with; acks leave batched. A no-op when the current connection has no
   * acks (the service did not offer them): see {@link WsDispatcher.acks}.
   */
  ack(deliveryId: string): void;
  /**
   * Sends a text frame (e.g. a `stream.delta`) on the open connection; false
   * when no connection is open or the socket refused it. Never queued for a
   * later connection.
   */
  sendFrame(text: string): boolean;
  /** Bytes the open socket has queued and not yet written (0 when unknown): for back-pressure. */
  readonly bufferedAmount: number;
  /** True while the open connection acknowledges deliveries. */
  readonly acks: boolean;
  /** Subscribes to an event. */
  on<E extends WsDispatcherEventName>(event: E, listener: WsDispatcherListener<E>): WsDispatcher;
  /** Subscribes to one occurrence of an event. */
  once<E extends WsDispatcherEventName>(event: E, listener: WsDispatcherListener<E>): WsDispatcher;
  /** Unsubscribes. */
  off<E extends WsDispatcherEventName>(event: E, listener: WsDispatcherListener<E>): WsDispatcher;
}
