/**
 * The application layer of the world's relay: HTTP and WebSocket on
 * 127.0.0.1 (real sockets) in front of the reference server; it sees every
 * byte the clients exchange with it and can rewrite, hold, drop or invent
 * any of it, as a compromised service could.
 *
 * - HTTP: JSON request and response bodies pass through `onRequest` /
 *   `onResponse`, which may rewrite them, wait (hold an answer until
 *   something else happened), or answer with another status (`answer(429, …)`).
 * - WebSocket: every frame in both directions passes through `onServerFrame` /
 *   `onClientFrame` (rewrite, or `DROP`), and `inject()` sends a frame of the
 *   relay's own to the clients.
 * - Everything that crossed the relay is kept in `seen` (request lines,
 *   headers, bodies and frames as bytes), so a test can assert what the
 *   service never saw.
 *
 * @module
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';

/** An answer of the relay's choosing: another status (and body) than the service's. */
export interface RelayAnswer {
  readonly [ANSWER]: true;
  readonly status: number;
  readonly json: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}
const ANSWER = Symbol('relay answer');

/** Answers with `status` and `json` instead of passing the service's answer on. */
export function answer(status: number, json: unknown, headers?: Record<string, string>): RelayAnswer {
  return { [ANSWER]: true, status, json, ...(headers === undefined ? {} : { headers }) };
}

const isAnswer = (value: unknown): value is RelayAnswer =>
  typeof value === 'object' && value !== null && ANSWER in value;

/** Rewrites one JSON body (may wait); return it unchanged to pass it through. */
export type JsonRewrite = (method: string, path: string, json: unknown) => unknown;

/** Returned by a frame hook: the frame is not forwarded. */
export const DROP: unique symbol = Symbol('drop frame');

/** Rewrites one WebSocket frame (parsed JSON); return it, another frame, or `DROP`. */
export type FrameRewrite = (frame: unknown, socket: RelaySocket) => unknown;

/** One client WebSocket the relay carries. */
export interface RelaySocket {
  /** The request path of the upgrade (`/ws`, `/agents/ws`, …). */
  readonly path: string;
  /** Sends a frame to the client as if the service had sent it. */
  toClient(frame: unknown): void;
  /** Sends a frame to the service as if the client had sent it. */
  toService(frame: unknown): void;
  /** Closes both sides. */
  close(code?: number): void;
}

/** One thing that crossed the relay, as bytes. */
export interface RelayRecord {
  /**
   * `http-request` (request line, headers, body), `http-response` (status,
   * headers, body), `ws-up` (a client's frame, unmasked), `ws-down` (a service frame).
   */
  readonly channel: 'http-request' | 'http-response' | 'ws-up' | 'ws-down';
  /** The request path (the upgrade's for frames). */
  readonly path: string;
  readonly bytes: Uint8Array;
}

/** A running frame relay. */
export interface FrameRelay {
  readonly url: string;
  /** Applied to JSON request bodies. */
  onRequest: JsonRewrite | undefined;
  /** Applied to JSON response bodies; may return `answer(status, json)`. */
  onResponse: JsonRewrite | undefined;
  /** Applied to each frame the service sends to a client. */
  onServerFrame: FrameRewrite | undefined;
  /** Applied to each frame a client sends to the service. */
  onClientFrame: FrameRewrite | undefined;
  /** The client sockets open now. */
  readonly sockets: readonly RelaySocket[];
  /** Everything that crossed the relay so far. */
  readonly seen: readonly RelayRecord[];
  /** Sends `frame` to every open client socket whose path matches; returns how many got it. */
  inject(frame: unknown, path?: string | RegExp): number;
  close(): Promise<void>;
}

/** A frame relay's four rewrite hooks. */
export type RelayHooks = Pick<FrameRelay, 'onRequest' | 'onResponse' | 'onServerFrame' | 'onClientFrame'>;

const HOOK_NAMES = ['onRequest', 'onResponse', 'onServerFrame', 'onClientFrame'] as const;

/**
 * Gives `target` the relay's four hooks and `sockets` as live accessors (a hook
 * set on `target` is set on the relay), for the relays that wrap a frame relay:
 * the testing kit's `Relay` and the security tests' hostile relay.
 */
export function forwardHooks<T extends object>(
  target: T,
  relay: FrameRelay,
): T & RelayHooks & { readonly sockets: readonly RelaySocket[] } {
  for (const name of HOOK_NAMES) {
    Object.defineProperty(target, name, {
      get: () => relay[name],
      set: (hook: unknown) => Reflect.set(relay, name, hook),
      enumerable: true,
    });
  }
  Object.defineProperty(target, 'sockets', { get: () => relay.sockets, enumerable: true });
  return target as T & RelayHooks & { readonly sockets: readonly RelaySocket[] };
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function parseJson(raw: Buffer): { ok: true; json: unknown } | { ok: false } {
  try {
    return { ok: true, json: JSON.parse(raw.toString('utf8')) };
  } catch {
    return { ok: false };
  }
}

/** A request or status line and its headers, as HTTP writes them. */
function head(line: string, headers: Readonly<Record<string, string | string[] | undefined>>): Buffer {
  const lines = [line];
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) lines.push(`${k}: ${String(v)}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8');
}

const HOP_HEADERS = new Set([
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'set-cookie',
  'connection',
]);

/** Starts a frame relay in front of `upstream` (an http:// base URL). */
export async function startFrameRelay(upstream: string): Promise<FrameRelay> {
  const sockets = new Set<RelaySocket>();
  const seen: RelayRecord[] = [];
  const wss = new WebSocketServer({ noServer: true });

  const relay: FrameRelay = {
    url: '',
    onRequest: undefined,
    onResponse: undefined,
    onServerFrame: undefined,
    onClientFrame: undefined,
    get sockets() {
      return [...sockets];
    },
    seen,
    inject(frame, path) {
      let n = 0;
      for (const s of sockets) {
        if (path === undefined || (typeof path === 'string' ? s.path === path : path.test(s.path))) {
          s.toClient(frame);
          n++;
        }
      }
      return n;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.close();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const method = req.method ?? 'GET';
      const path = req.url ?? '/';
      let raw = await bodyOf(req);
      seen.push({
        channel: 'http-request',
        path,
        bytes: Buffer.concat([head(`${method} ${path}`, req.headers), raw]),
      });
      const parsed =
        raw.length > 0 && relay.onRequest !== undefined ? parseJson(raw) : { ok: false as const };
      if (parsed.ok) raw = Buffer.from(JSON.stringify(await relay.onRequest!(method, path, parsed.json)));
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) {
        if (v === undefined || k === 'host' || HOP_HEADERS.has(k)) continue;
        headers.set(k, Array.isArray(v) ? v.join(', ') : v);
      }
      const upstreamAnswer = await fetch(upstream + path, {
        method,
        headers,
        ...(raw.length === 0 ? {} : { body: new Uint8Array(raw) }),
      });
      let status = upstreamAnswer.status;
      let out = Buffer.from(await upstreamAnswer.arrayBuffer());
      const outHeaders: Record<string, string | string[]> = {};
      upstreamAnswer.headers.forEach((v, k) => {
        if (!HOP_HEADERS.has(k)) outHeaders[k] = v;
      });
      const cookies = upstreamAnswer.headers.getSetCookie();
      if (cookies.length > 0) outHeaders['set-cookie'] = cookies;
      seen.push({
        channel: 'http-response',
        path,
        bytes: Buffer.concat([head(`${status}`, outHeaders), out]),
      });
      const answerJson =
        out.length > 0 && relay.onResponse !== undefined ? parseJson(out) : { ok: false as const };
      if (answerJson.ok) {
        const rewritten = await relay.onResponse!(method, path, answerJson.json);
        if (isAnswer(rewritten)) {
          status = rewritten.status;
          out = Buffer.from(JSON.stringify(rewritten.json));
          Object.assign(outHeaders, rewritten.headers ?? {}, { 'content-type': 'application/json' });
        } else {
          out = Buffer.from(JSON.stringify(rewritten));
        }
      }
      res.writeHead(status, { ...outHeaders, 'content-length': String(out.length) });
      res.end(out);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = req.url ?? '/';
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (
        v === undefined ||
        k === 'host' ||
        k.startsWith('sec-websocket') ||
        k === 'upgrade' ||
        k === 'connection'
      )
        continue;
      headers[k] = Array.isArray(v) ? v.join(', ') : v;
    }
    const protocols = req.headers['sec-websocket-protocol']?.split(',').map((p) => p.trim());
    const service = new WebSocket(upstream.replace(/^http/, 'ws') + path, protocols, { headers });
    const pendingUp: string[] = [];
    service.on('error', () => socket.destroy());
    wss.handleUpgrade(req, socket, head, (client) => {
      const relaySocket: RelaySocket = {
        path,
        toClient: (frame) => {
          if (client.readyState === WebSocket.OPEN) client.send(JSON.stringify(frame));
        },
        toService: (frame) => {
          const text = JSON.stringify(frame);
          if (service.readyState === WebSocket.OPEN) service.send(text);
          else pendingUp.push(text);
        },
        close: (code = 1001) => {
          if (client.readyState === WebSocket.OPEN) client.close(code);
          if (service.readyState === WebSocket.OPEN) service.close(code);
          else service.terminate();
        },
      };
      sockets.add(relaySocket);
      const pass = (text: string, hook: FrameRewrite | undefined, send: (frame: unknown) => void): void => {
        if (hook === undefined) return send(JSON.parse(text));
        let frame: unknown;
        try {
          frame = JSON.parse(text);
        } catch {
          return send(text);
        }
        const out = hook(frame, relaySocket);
        if (out !== DROP) send(out);
      };
      const bytes = (data: RawData): Buffer =>
        Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
      client.on('message', (data) => {
        const b = bytes(data);
        seen.push({ channel: 'ws-up', path, bytes: b });
        pass(b.toString('utf8'), relay.onClientFrame, relaySocket.toService);
      });
      service.on('message', (data) => {
        const b = bytes(data);
        seen.push({ channel: 'ws-down', path, bytes: b });
        pass(b.toString('utf8'), relay.onServerFrame, relaySocket.toClient);
      });
      service.on('open', () => {
        for (const t of pendingUp.splice(0)) service.send(t);
      });
      // Close codes are passed on as they are (1005/1006 cannot be sent: 1000 then).
      const sendable = (code: number): number => (code === 1005 || code === 1006 ? 1000 : code);
      service.on('close', (code, reason) => {
        sockets.delete(relaySocket);
        if (client.readyState === WebSocket.OPEN) client.close(sendable(code), reason);
      });
      client.on('close', (code, reason) => {
        sockets.delete(relaySocket);
        if (service.readyState === WebSocket.OPEN) service.close(sendable(code), reason);
        else service.terminate();
      });
      client.on('error', () => service.terminate());
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (relay as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return relay;
}
