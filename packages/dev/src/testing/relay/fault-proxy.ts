/**
 * The transport layer of the world's relay: a TCP fault proxy on 127.0.0.1: every accepted connection
 * is paired with one to the target, and bytes are forwarded both ways
 * unless a fault says otherwise. Faults: reset every pair (RST), partition a
 * direction (bytes dropped, not buffered; optionally followed by a reset, as
 * a dead-connection detection would), latency per chunk, trickling, and
 * refusing new connections. Node `net` only.
 *
 * @module
 */
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/** Which way bytes flow: `upstream` is client → target, `downstream` is target → client. */
export type Direction = 'upstream' | 'downstream' | 'both';

/** Where the proxy forwards to. */
export interface ProxyTarget {
  readonly host: string;
  readonly port: number;
}

/** Options of {@link startFaultProxy}. */
export interface FaultProxyOptions {
  readonly target: ProxyTarget;
}

/** Options of `partition()` (a relay's `partition`). */
export interface PartitionOptions {
  /**
   * At the end of the window reset every connection pair that lived through
   * it (a peer's dead-connection detection firing), instead of letting
   * traffic flow again on it.
   * @defaultValue `false`
   */
  readonly resetAfter?: boolean;
}

/** Counters of a fault proxy (a relay's `stats()`), since it started. */
export interface FaultProxyStats {
  /** Connections accepted and paired (refused ones not counted). */
  readonly connections: number;
  /** Pairs open now. */
  readonly open: number;
  /** Connections closed at once because the proxy was refusing. */
  readonly refused: number;
  /** Pairs destroyed with RST by `reset()` or a partition's `resetAfter`. */
  readonly resets: number;
  /** Bytes written to the target. */
  readonly bytesUpstream: number;
  /** Bytes written to clients. */
  readonly bytesDownstream: number;
  /** Client bytes dropped by an upstream partition. */
  readonly droppedUpstream: number;
  /** Target bytes dropped by a downstream partition. */
  readonly droppedDownstream: number;
}

/** A running fault proxy. Faults apply to every connection pair, current and new. */
export interface FaultProxy {
  /** Always `127.0.0.1`. */
  readonly host: string;
  /** The port clients connect to. */
  readonly port: number;
  /** Destroys every current connection pair with RST on both sides; returns how many pairs. */
  reset(): number;
  /**
   * Drops every byte flowing in `direction` for `ms` of real time (bytes
   * already queued by {@link FaultProxy.delay} or trickling still go).
   * Resolves when the window ends (after the reset, with `resetAfter`).
   * `ms` may be `Infinity`; {@link FaultProxy.heal} ends every window early.
   */
  partition(direction: Direction, ms: number, options?: PartitionOptions): Promise<void>;
  /** Ends every partition window now (their `resetAfter` still applies). */
  heal(): void;
  /** Holds each chunk `ms` before forwarding it (order kept); 0 turns it off. */
  delay(ms: number): void;
  /** Forwards at most `bytesPerChunk` bytes every `intervalMs`; `trickle(0, 0)` turns it off. */
  trickle(bytesPerChunk: number, intervalMs: number): void;
  /** While on, new connections are closed with RST at once (the target is not contacted). */
  refuse(on: boolean): void;
  /** The counters so far. */
  stats(): FaultProxyStats;
  /** Stops listening and destroys every pair. Idempotent. */
  close(): Promise<void>;
}

/** Mutable counters. */
type Counters = { -readonly [K in keyof FaultProxyStats]: FaultProxyStats[K] };

/** The shared fault state the pipes read on every chunk. */
interface Faults {
  readonly dropping: Record<'upstream' | 'downstream', number>;
  delayMs: number;
  trickle: { bytes: number; intervalMs: number } | undefined;
}

/** One direction of one pair: reads `from`, drops or queues, writes `to` in order. */
class Pipe {
  readonly #queue: { chunk: Buffer; dueAt: number }[] = [];
  #timer: NodeJS.Timeout | undefined;
  #ended = false;
  #draining = false;

  constructor(
    readonly from: Socket,
    readonly to: Socket,
    readonly direction: 'upstream' | 'downstream',
    readonly faults: Faults,
    readonly counters: Counters,
  ) {
    from.on('data', (chunk: Buffer) => this.#take(chunk));
    from.on('end', () => {
      this.#ended = true;
      this.#flush();
    });
  }

  /** Stops forwarding (the pair is gone). */
  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#queue.length = 0;
  }

  #take(chunk: Buffer): void {
    if (this.faults.dropping[this.direction] > 0) {
      this.counters[this.direction === 'upstream' ? 'droppedUpstream' : 'droppedDownstream'] += chunk.length;
      return;
    }
    this.#queue.push({ chunk, dueAt: Date.now() + this.faults.delayMs });
    this.#flush();
  }

  #flush(): void {
    if (this.#timer !== undefined || this.to.destroyed) return;
    for (let head = this.#queue[0]; head !== undefined; head = this.#queue[0]) {
      const wait = head.dueAt - Date.now();
      if (wait > 0) return this.#later(wait);
      const trickle = this.faults.trickle;
      let piece = head.chunk;
      if (trickle !== undefined && piece.length > trickle.bytes) {
        head.chunk = piece.subarray(trickle.bytes);
        piece = piece.subarray(0, trickle.bytes);
      } else this.#queue.shift();
      this.#write(piece);
      if (trickle !== undefined) return this.#later(trickle.intervalMs);
    }
    if (this.#ended && !this.to.destroyed) this.to.end();
  }

  #later(ms: number): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#flush();
    }, ms);
  }

  #write(piece: Buffer): void {
    this.counters[this.direction === 'upstream' ? 'bytesUpstream' : 'bytesDownstream'] += piece.length;
    if (!this.to.write(piece) && !this.#draining) {
      this.#draining = true;
      this.from.pause();
      this.to.once('drain', () => {
        this.#draining = false;
        this.from.resume();
      });
    }
  }
}

/** A client connection and its connection to the target. */
class Pair {
  readonly #pipes: Pipe[];
  #gone = false;

  constructor(
    readonly client: Socket,
    readonly upstream: Socket,
    faults: Faults,
    counters: Counters,
    onGone: (pair: Pair) => void,
  ) {
    this.#pipes = [
      new Pipe(client, upstream, 'upstream', faults, counters),
      new Pipe(upstream, client, 'downstream', faults, counters),
    ];
    // An error (a reset, a refused target) is passed on as a reset; a clean
    // close travels as a FIN through the pipe (after what it still holds).
    const failed = (other: Socket): void => {
      if (this.#gone) return;
      this.#gone = true;
      for (const p of this.#pipes) p.stop();
      other.resetAndDestroy();
      onGone(this);
    };
    client.on('error', () => failed(upstream));
    upstream.on('error', () => failed(client));
    const closed = (): void => {
      if (this.#gone || !client.destroyed || !upstream.destroyed) return;
      this.#gone = true;
      onGone(this);
    };
    client.on('close', closed);
    upstream.on('close', closed);
  }

  /** RST on both sides. */
  reset(): void {
    if (this.#gone) return;
    this.#gone = true;
    for (const p of this.#pipes) p.stop();
    this.client.resetAndDestroy();
    this.upstream.resetAndDestroy();
  }
}

/**
 * Starts a fault proxy on 127.0.0.1 (a free port) forwarding to `target`.
 *
 * @throws when the port cannot be bound.
 * @example
 * ```ts
 * const proxy = await startFaultProxy({ target: { host: '127.0.0.1', port: server.port } });
 * await proxy.partition('downstream', 500, { resetAfter: true });
 * expect(proxy.stats().resets).toBe(1);
 * await proxy.close();
 * ```
 */
export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const counters: Counters = {
    connections: 0,
    open: 0,
    refused: 0,
    resets: 0,
    bytesUpstream: 0,
    bytesDownstream: 0,
    droppedUpstream: 0,
    droppedDownstream: 0,
  };
  const faults: Faults = { dropping: { upstream: 0, downstream: 0 }, delayMs: 0, trickle: undefined };
  const pairs = new Set<Pair>();
  const healers = new Set<() => void>();
  let refusing = false;

  const server: Server = createServer({ pauseOnConnect: true }, (client) => {
    if (refusing) {
      counters.refused++;
      client.on('error', () => undefined);
      client.resetAndDestroy();
      return;
    }
    counters.connections++;
    counters.open++;
    const upstream = connect({ host: options.target.host, port: options.target.port });
    const pair = new Pair(client, upstream, faults, counters, (p) => {
      if (pairs.delete(p)) counters.open--;
    });
    pairs.add(pair);
    upstream.once('connect', () => client.resume());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const resetAll = (): number => {
    const now = [...pairs];
    for (const pair of now) {
      pairs.delete(pair);
      counters.open--;
      counters.resets++;
      pair.reset();
    }
    return now.length;
  };

  let closing: Promise<void> | undefined;
  return {
    host: '127.0.0.1',
    port,
    reset: resetAll,
    partition(direction, ms, partitionOptions = {}) {
      const dirs = direction === 'both' ? (['upstream', 'downstream'] as const) : [direction];
      for (const d of dirs) faults.dropping[d]++;
      return new Promise<void>((resolve) => {
        const end = (): void => {
          clearTimeout(timer);
          healers.delete(end);
          for (const d of dirs) faults.dropping[d]--;
          // Every pair open now lived through (part of) the window.
          if (partitionOptions.resetAfter === true) resetAll();
          resolve();
        };
        const timer = Number.isFinite(ms) ? setTimeout(end, ms) : undefined;
        healers.add(end);
      });
    },
    heal() {
      for (const end of [...healers]) end();
    },
    delay(ms) {
      faults.delayMs = ms;
    },
    trickle(bytesPerChunk, intervalMs) {
      faults.trickle = bytesPerChunk > 0 ? { bytes: bytesPerChunk, intervalMs } : undefined;
    },
    refuse(on) {
      refusing = on;
    },
    stats: () => ({ ...counters }),
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const end of [...healers]) end();
        server.close(() => resolve());
        resetAll();
      });
      return closing;
    },
  };
}
