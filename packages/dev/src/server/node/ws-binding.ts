/**
 * `ws` binding of the hub: upgrades on {@link WS_PATH} only, text frames only,
 * frames capped at {@link WS_MAX_FRAME_BYTES}. A credential in the URL query
 * (`access_token`, `token`) is refused with 400 before the upgrade, so tokens
 * never travel in URLs.
 *
 * The `ws` package is imported after the server is listening (in the
 * background), which keeps `ams serve` start-up short.
 *
 * @module
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import { WS_MAX_FRAME_BYTES, WS_PATH } from '../ws/frames.js';
import type { WsHub } from '../ws/hub.js';

/** Handle on the WebSocket side of the server. */
export interface WebSocketBinding {
  /** Starts importing `ws` now rather than on the first upgrade. */
  preload(): void;
  /** Stops accepting upgrades. */
  close(): void;
}

function textOf(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}

function refuse(socket: Duplex, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/** Why an upgrade request is refused, or undefined when it may proceed. */
function refusal(req: IncomingMessage): string | undefined {
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://reference.invalid');
  } catch {
    return '400 Bad Request';
  }
  if (url.pathname !== WS_PATH) return '404 Not Found';
  if (url.searchParams.has('access_token') || url.searchParams.has('token')) return '400 Bad Request';
  return undefined;
}

/** Liveness: a ping every 30 s; a connection silent for 60 s is terminated (real time, not the server clock). */
export const WS_PING_INTERVAL_MS = 30_000;
/** Silence after which a connection is terminated. */
export const WS_SILENCE_LIMIT_MS = 60_000;

/**
 * Frames sent within one turn of the event loop leave in one socket write:
 * the first send corks the TCP socket and the uncork runs on the next tick
 * (after the work at hand, before any I/O), so a relay of many stream deltas
 * costs one `writev` rather than one per frame, and a lone frame waits for
 * nothing but the end of the current callback.
 */
function batchedWrites(socket: Duplex): () => void {
  let corked = false;
  const uncork = (): void => {
    corked = false;
    socket.uncork();
  };
  return () => {
    if (corked) return;
    corked = true;
    socket.cork();
    process.nextTick(uncork);
  };
}

function connect(hub: WsHub, ws: WebSocket, socket: Duplex): void {
  const batch = batchedWrites(socket);
  const sink = hub.accept({
    // A socket in its close handshake would drop the frame silently: report it unsent.
    send: (text) => {
      if (ws.readyState !== ws.OPEN) return false;
      batch();
      ws.send(text);
      return true;
    },
    close: (code, reason) => ws.close(code, reason),
  });
  let lastSeen = Date.now();
  // Real time on purpose: virtual time jumps of days must not kill live sockets.
  const ping = setInterval(() => {
    if (Date.now() - lastSeen > WS_SILENCE_LIMIT_MS) ws.terminate();
    else ws.ping();
  }, WS_PING_INTERVAL_MS);
  ping.unref();
  ws.on('pong', () => {
    lastSeen = Date.now();
  });
  ws.on('message', (data, isBinary) => {
    lastSeen = Date.now();
    if (isBinary) sink.receiveBinary();
    else sink.receive(textOf(data));
  });
  ws.on('close', () => {
    clearInterval(ping);
    sink.closed();
  });
  ws.on('error', () => sink.closed());
}

/** Attaches the hub to `server`. */
export function attachWebSockets(server: Server, hub: WsHub): WebSocketBinding {
  let wss: Promise<WebSocketServer> | undefined;
  let closed = false;
  const load = (): Promise<WebSocketServer> => {
    wss ??= import('ws').then(
      (m) => new m.WebSocketServer({ noServer: true, maxPayload: WS_MAX_FRAME_BYTES }),
    );
    return wss;
  };
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const refused = closed ? '503 Service Unavailable' : refusal(req);
    if (refused !== undefined) {
      refuse(socket, refused);
      return;
    }
    load().then(
      (w) => w.handleUpgrade(req, socket, head, (ws) => connect(hub, ws, socket)),
      () => socket.destroy(),
    );
  });
  return {
    preload: () => void load(),
    close() {
      closed = true;
      void wss?.then((w) => w.close());
    },
  };
}
