/**
 * The world's relay: a proxy between clients and the service for users'
 * own tests. It records every byte that crosses it, checks that a marker
 * never crossed in any usual encoding, rewrites, drops and injects
 * WebSocket frames and HTTP bodies, and stages transport faults (delay,
 * partition, reset, refuse).
 *
 * Two layers, both on 127.0.0.1: a TCP fault proxy (clients connect to it)
 * in front of an HTTP and WebSocket relay in front of the service.
 *
 * @module
 */
import { TestWorldError } from './test-world-parts.js';
import {
  startFaultProxy,
  type Direction,
  type FaultProxy,
  type FaultProxyStats,
  type PartitionOptions,
} from './relay/fault-proxy.js';
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
} from './relay/frame-relay.js';

export { answer, DROP };
export type {
  Direction,
  FaultProxyStats as RelayStats,
  FrameRewrite,
  JsonRewrite,
  PartitionOptions,
  RelayAnswer,
  RelayRecord,
  RelaySocket,
};

/** Options of {@link startRelay}. */
export interface RelayOptions {
  /** The service's base URL (`http://127.0.0.1:<port>`). */
  readonly target: string;
}

/**
 * A running relay. Point clients' `baseUrl` at `url` (the SDK derives its
 * WebSocket address from it); `createTestWorld({ relay: true })` does it
 * for every client of the world. Webhook deliveries go from the service to
 * the agent's receiver directly, not through the relay.
 */
export interface Relay {
  /** The relay's base URL. */
  readonly url: string;
  /**
   * Everything that crossed, in order: request lines, headers and bodies;
   * status lines, headers and bodies; WebSocket frames both ways (unmasked).
   */
  readonly records: readonly RelayRecord[];
  /** Applied to JSON request bodies (may wait); return the body, changed or not. */
  onRequest: JsonRewrite | undefined;
  /** Applied to JSON response bodies; may return `answer(status, json)` instead. */
  onResponse: JsonRewrite | undefined;
  /** Applied to each frame the service sends (parsed JSON); return a frame or `DROP`. */
  onServerFrame: FrameRewrite | undefined;
  /** Applied to each frame a client sends (parsed JSON); return a frame or `DROP`. */
  onClientFrame: FrameRewrite | undefined;
  /** The client WebSockets open now. */
  readonly sockets: readonly RelaySocket[];
  /** Sends `frame` to every open client socket whose path matches; returns how many got it. */
  inject(frame: unknown, path?: string | RegExp): number;
  /**
   * Throws unless `marker` never crossed the relay: not as UTF-8 text, hex
   * (either case), base64 or base64url at any of the three alignments.
   *
   * @throws {@link TestWorldError} naming where it was found (never the content);
   *   `RangeError` for a marker under 8 bytes (it would match by chance).
   */
  assertNoPlaintext(marker: string | Uint8Array): void;
  /** Holds each chunk `ms` of real time before forwarding it (order kept); 0 turns it off. */
  delay(ms: number): void;
  /**
   * Drops every byte flowing in `direction` (`upstream`: to the service) for
   * `ms` of real time; resolves when the window ends. `Infinity` lasts
   * until {@link Relay.heal}. With `resetAfter`, connections that lived
   * through the window are reset at its end.
   */
  partition(direction: Direction, ms: number, options?: PartitionOptions): Promise<void>;
  /** Ends every partition now. */
  heal(): void;
  /** Resets (RST) every connection open now; returns how many. */
  reset(): number;
  /** While on, new connections are reset at once. */
  refuse(on: boolean): void;
  /** Counters: connections, resets, bytes each way, bytes dropped. */
  stats(): FaultProxyStats;
  /** Stops both layers. Idempotent. */
  close(): Promise<void>;
}

/** The patterns a marker takes in the usual encodings. */
export function encodingsOf(marker: Uint8Array): { readonly name: string; readonly bytes: Buffer }[] {
  const m = Buffer.from(marker);
  const out = [
    { name: 'text', bytes: m },
    { name: 'hex', bytes: Buffer.from(m.toString('hex'), 'latin1') },
    { name: 'HEX', bytes: Buffer.from(m.toString('hex').toUpperCase(), 'latin1') },
  ];
  for (let k = 0; k < 3; k++) {
    const b64 = Buffer.concat([Buffer.alloc(k), m]).toString('base64');
    // Characters made only of the marker's bits: from ceil(8k / 6) to floor(8(k + n) / 6).
    const part = b64.slice(Math.ceil((8 * k) / 6), Math.floor((8 * (k + m.length)) / 6));
    out.push({ name: `base64@${k}`, bytes: Buffer.from(part, 'latin1') });
    const url = part.replaceAll('+', '-').replaceAll('/', '_');
    if (url !== part) out.push({ name: `base64url@${k}`, bytes: Buffer.from(url, 'latin1') });
  }
  return out;
}

/** Where a marker was found in what crossed. */
function findMarker(records: readonly RelayRecord[], marker: Uint8Array): string | undefined {
  const patterns = encodingsOf(marker);
  for (const [i, r] of records.entries()) {
    const bytes = Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength);
    for (const p of patterns) {
      if (bytes.indexOf(p.bytes) >= 0) return `record ${i} (${r.channel} ${r.path}) as ${p.name}`;
    }
  }
  return undefined;
}

/**
 * Starts a relay in front of `target`.
 *
 * @throws when a port cannot be bound.
 * @example
 * ```ts
 * const relay = await startRelay({ target: server.url });
 * const user = new UserClient({ baseUrl: relay.url });
 * // … the user sends 'secret plan' …
 * relay.assertNoPlaintext('secret plan');
 * await relay.close();
 * ```
 */
export async function startRelay(options: RelayOptions): Promise<Relay> {
  const frames: FrameRelay = await startFrameRelay(options.target.replace(/\/+$/, ''));
  let faults: FaultProxy;
  try {
    const inner = new URL(frames.url);
    faults = await startFaultProxy({ target: { host: inner.hostname, port: Number(inner.port) } });
  } catch (err) {
    await frames.close();
    throw err;
  }
  let closing: Promise<void> | undefined;
  const relay = {
    url: `http://${faults.host}:${faults.port}`,
    records: frames.seen,
    inject: (frame, path) => frames.inject(frame, path),
    assertNoPlaintext(marker) {
      const bytes = typeof marker === 'string' ? new TextEncoder().encode(marker) : marker;
      if (bytes.length < 8) throw new RangeError('assertNoPlaintext needs a marker of at least 8 bytes.');
      const where = findMarker(frames.seen, bytes);
      if (where !== undefined) {
        throw new TestWorldError(`The marker crossed the relay in clear: found in ${where}.`);
      }
    },
    delay: (ms) => faults.delay(ms),
    partition: (direction, ms, o) => faults.partition(direction, ms, o),
    heal: () => faults.heal(),
    reset: () => faults.reset(),
    refuse: (on) => faults.refuse(on),
    stats: () => faults.stats(),
    close() {
      closing ??= faults.close().then(() => frames.close());
      return closing;
    },
  } satisfies Omit<Relay, keyof RelayHooks | 'sockets'>;
  return forwardHooks(relay, frames);
}
