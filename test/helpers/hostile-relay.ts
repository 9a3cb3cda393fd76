/**
 * A hostile service, for tests: a relay on 127.0.0.1 (real sockets) in front
 * of the reference server that sees every byte the clients exchange with it
 * and can rewrite, hold, drop or invent any of it, as a compromised service
 * could.
 *
 * - HTTP: JSON request and response bodies pass through `onRequest` /
 *   `onResponse`, which may rewrite them, wait (hold an answer until
 *   something else happened), or answer with another status (`answer(429, …)`).
 * - WebSocket: every frame in both directions passes through `onServerFrame` /
 *   `onClientFrame` (rewrite, or `DROP`), and `inject()` sends a frame of the
 *   relay's own to the clients.
 * - Everything that crossed the relay is kept in `seen` (bodies and frames as
 *   text), so a test can assert what the service never saw.
 *
 * Point a client's `baseUrl` at `relay.url`: the SDK derives its WebSocket
 * address from it, so both channels go through the relay.
 */
import {
  answer,
  DROP,
  forwardHooks,
  startFrameRelay,
  type FrameRelay,
  type FrameRewrite,
  type JsonRewrite,
  type RelayAnswer,
  type RelayHooks,
  type RelayRecord,
  type RelaySocket,
} from '../../packages/dev/src/testing/relay/frame-relay.js';

// One relay: the testing kit's frame relay (what users get as `world.relay`), seen here as text.
export { answer, DROP };
export type { FrameRewrite, JsonRewrite, RelayAnswer, RelaySocket };

/** What crossed the relay, as text (HTTP bodies without their head; empty bodies left out). */
export interface SeenItem {
  readonly channel: 'http-request' | 'http-response' | 'ws-up' | 'ws-down';
  readonly path: string;
  readonly text: string;
}

/** A running relay. */
export interface HostileRelay {
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
  readonly seen: readonly SeenItem[];
  /** Sends `frame` to every open client socket whose path matches; returns how many got it. */
  inject(frame: unknown, path?: string | RegExp): number;
  close(): Promise<void>;
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** A record as text: a frame whole, an HTTP message's body (`undefined` when it has none). */
function asText(record: RelayRecord): SeenItem | undefined {
  const bytes = Buffer.from(record.bytes.buffer, record.bytes.byteOffset, record.bytes.byteLength);
  const http = record.channel === 'http-request' || record.channel === 'http-response';
  const body = http ? bytes.subarray(bytes.indexOf(HEAD_END) + HEAD_END.length) : bytes;
  if (http && body.length === 0) return undefined;
  return { channel: record.channel, path: record.path, text: body.toString('utf8') };
}

/** Starts a relay in front of `upstream` (an http:// base URL). */
export async function startHostileRelay(upstream: string): Promise<HostileRelay> {
  const inner: FrameRelay = await startFrameRelay(upstream);
  const seen: SeenItem[] = [];
  let converted = 0;
  const relay = {
    url: inner.url,
    get seen() {
      // Records are only appended: convert the new ones (earlier indexes stay valid).
      const records = inner.seen;
      for (; converted < records.length; converted++) {
        const item = asText(records[converted]!);
        if (item !== undefined) seen.push(item);
      }
      return seen;
    },
    inject: (frame, path) => inner.inject(frame, path),
    close: () => inner.close(),
  } satisfies Omit<HostileRelay, keyof RelayHooks | 'sockets'>;
  return forwardHooks(relay, inner);
}
