/**
 * A real `ws` server on 127.0.0.1:0 for dispatcher tests. It records every
 * connection (upgrade URL, headers, frames, pings, close) and lets the test
 * script the server side. Waits use a real-time failsafe only (no timing
 * assertions): they await events, never sleep.
 */
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import type { WebSocketConstructor, WebSocketLike } from '../../packages/sdk/src/transport/ws/index.js';

const FAILSAFE_MS = 5_000;

/** Resolves when `check()` is true, re-checking on every `poke`; rejects after the failsafe. */
export function until(check: () => boolean, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + FAILSAFE_MS;
    const tick = (): void => {
      if (check()) resolve();
      else if (Date.now() > deadline) reject(new Error(`failsafe: ${what}`));
      else setImmediate(tick);
    };
    tick();
  });
}

/** The server side of one connection. */
export interface ServerConnection {
  readonly index: number;
  readonly socket: WebSocket;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly frames: string[];
  pings: number;
  closed: { code: number; reason: string } | undefined;
  /** True while every earlier connection was already closing or closed when this one arrived. */
  readonly alone: boolean;
  /** Sends a frame (object → JSON). */
  send(frame: object | string | Buffer): void;
  /** Waits for frame number `i`. */
  frame(i: number): Promise<string>;
}

/** A staged server. */
export interface StagedWsServer {
  readonly url: string;
  readonly connections: ServerConnection[];
  /** Scripted behaviour for each new connection. */
  onConnection: (conn: ServerConnection) => void;
  /** Waits until `n` connections were accepted. */
  connectionCount(n: number): Promise<ServerConnection>;
  close(): Promise<void>;
}

/** Starts a server; `autoPong: false` makes it ignore client pings (a silent peer). */
export async function stageWsServer(options: { autoPong?: boolean } = {}): Promise<StagedWsServer> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, autoPong: options.autoPong ?? true });
  await new Promise<void>((resolve) => wss.once('listening', resolve));
  const connections: ServerConnection[] = [];
  const staged: StagedWsServer = {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/ws`,
    connections,
    onConnection: () => undefined,
    connectionCount: async (n) => {
      await until(() => connections.length >= n, `${n} connection(s)`);
      return connections[n - 1]!;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => resolve());
      }),
  };
  wss.on('connection', (socket, req) => {
    const alone = connections.every((c) => c.socket.readyState !== WebSocket.OPEN);
    const conn: ServerConnection = {
      index: connections.length,
      socket,
      url: req.url ?? '',
      headers: req.headers,
      frames: [],
      pings: 0,
      closed: undefined,
      alone,
      send: (frame) =>
        socket.send(typeof frame === 'string' || Buffer.isBuffer(frame) ? frame : JSON.stringify(frame)),
      frame: async (i) => {
        await until(() => conn.frames.length > i, `frame ${i}`);
        return conn.frames[i]!;
      },
    };
    socket.on('message', (data) => conn.frames.push(String(data)));
    socket.on('ping', () => (conn.pings += 1));
    socket.on('close', (code, reason) => (conn.closed = { code, reason: reason.toString('utf8') }));
    connections.push(conn);
    staged.onConnection(conn);
  });
  return staged;
}

/** Runs `fn` with frame number `i` once it arrives (ignored if it never does: scripted server behaviour). */
export function onFrame(conn: ServerConnection, i: number, fn: (frame: string) => void): void {
  conn.frame(i).then(fn, () => undefined);
}

/** Answers `auth.ok` to the first frame when it is an auth frame, then runs `then`. */
export function acceptAuth(conn: ServerConnection, then?: () => void): void {
  onFrame(conn, 0, (first) => {
    if ((JSON.parse(first) as { type?: string }).type === 'auth') conn.send({ type: 'auth.ok' });
    then?.();
  });
}

/** Wraps a constructor to count sockets that exist (created, `close` not yet emitted). */
export function countingWebSocket(): {
  ctor: WebSocketConstructor;
  live: () => number;
  maxLive: () => number;
  created: () => number;
} {
  let live = 0;
  let maxLive = 0;
  let created = 0;
  class Counting extends WebSocket {
    constructor(url: string) {
      super(url);
      created += 1;
      live += 1;
      maxLive = Math.max(maxLive, live);
      this.on('close', () => (live -= 1));
    }
  }
  const ctor: WebSocketConstructor = Counting as unknown as new (url: string) => WebSocketLike;
  return { ctor, live: () => live, maxLive: () => maxLive, created: () => created };
}
