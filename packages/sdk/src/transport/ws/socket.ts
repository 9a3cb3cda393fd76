/**
 * The socket seam: the few members of a WebSocket the dispatcher uses, met
 * by the `ws` package (the default) and by WHATWG `WebSocket` (browsers,
 * Deno, Node 22+). `ping`, `terminate` and `on('pong' | 'ping')` are `ws`
 * extras; without them there are no client pings and a dead socket is closed
 * with `close()`. `pause` / `resume` (also `ws` only) let the Agent stop
 * reading under load (flow control); without them it reads at full speed.
 *
 * @module
 */

/** A message event (text frames carry a string). */
export interface SocketMessageEvent {
  readonly data: unknown;
}

/** A close event. */
export interface SocketCloseEvent {
  readonly code: number;
  readonly reason: string;
}

/** What the dispatcher needs of a WebSocket. */
export interface WebSocketLike {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: SocketMessageEvent) => void): void;
  addEventListener(type: 'close', listener: (event: SocketCloseEvent) => void): void;
  addEventListener(type: 'error', listener: (event: unknown) => void): void;
  /** Bytes queued by `send` and not yet written to the network (browsers and `ws`). */
  readonly bufferedAmount?: number;
  /** `ws` only: sends a ping frame. */
  ping?(): void;
  /** `ws` only: destroys the socket at once, without a close handshake. */
  terminate?(): void;
  /** `ws` only: stops reading from the TCP socket (frames already parsed may still arrive). */
  pause?(): void;
  /** `ws` only: starts reading again after {@link WebSocketLike.pause}. */
  resume?(): void;
  /** `ws` only: control-frame listeners. */
  on?(event: 'pong' | 'ping', listener: () => void): unknown;
}

/** A WebSocket constructor: `new WebSocket(url)`. */
export type WebSocketConstructor = new (url: string) => WebSocketLike;

let cached: Promise<WebSocketConstructor> | undefined;

/**
 * The default constructor: the `ws` package, imported on first use so that
 * code paths which inject their own constructor never load it.
 */
export function loadDefaultWebSocket(): Promise<WebSocketConstructor> {
  cached ??= import('ws').then((m): WebSocketConstructor => m.WebSocket);
  return cached;
}
