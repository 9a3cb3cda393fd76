/**
 * Opening envelopes on worker threads: a small pool that takes `openAsync`'s
 * work off the calling thread when many envelopes are in flight, so opening
 * uses every core.
 *
 * - **Automatic** (`'auto'`): a trickle is opened on the calling thread (no
 *   thread is started); from {@link AUTO_IN_FLIGHT_THRESHOLD} opens in flight
 *   on, the pool starts its workers (lazily, without waiting: opens go on in
 *   the thread until a worker says it is ready) and hands envelopes to them.
 *   Workers that had nothing to do for {@link OPEN_POOL_IDLE_MS} are stopped;
 *   idle workers are `unref`'d, so they never keep the process alive.
 * - **Keys once per worker**: the recipient key pairs are posted to a worker
 *   when it starts and again only when they change (a rotation); a job carries
 *   the envelope, the recipient id and the sender's 32-byte public key, looked
 *   up here first (the sender id is read from the envelope's first bytes).
 * - **Same results**: a worker runs the synchronous `open`; its failures come
 *   back as the same {@link CryptoError} (code, `reason`, message). Anything
 *   else a worker could not do (a crash, an exit, an unexpected error) is
 *   opened again on the calling thread: no envelope is lost.
 * - **Order** is not the pool's business: callers that need it (the Agent's
 *   pipeline) order results themselves; the pool answers each open on its own.
 * - Where there are no worker threads (Workers, browsers) or the worker
 *   script is not found (the SDK bundled into an app), every open runs on the
 *   calling thread, silently.
 *
 * @module
 */
import { silentLogger, type Logger } from '../../core/logger.js';
import { openAsync } from '../open.js';
import { checkOpenOptions, type OpenAsyncOptions, type OpenedEnvelope } from '../open-options.js';
import type { KeyPair } from '../keys.js';
import { peekSenderId } from './peek.js';
import {
  fromWireFailure,
  type JobResult,
  type OpenJob,
  type PoolMessage,
  type WorkerMessage,
} from './protocol.js';
import { findWorkerScript, workerThreads, type WorkerLike, type WorkerScript } from './worker-script.node.js';

/**
 * How the Agent opens envelopes: `'auto'` (worker threads only while many
 * envelopes are in flight), a number of worker threads used for every
 * envelope, or `false` (always on the calling thread).
 */
export type OpenWorkersSetting = 'auto' | number | false;

/** In `'auto'`, the pool is used once this many opens are in flight (a burst, not a trickle). */
export const AUTO_IN_FLIGHT_THRESHOLD = 8;
/** Workers with nothing to do for this long are stopped, ms. */
export const OPEN_POOL_IDLE_MS = 30_000;
/** In `'auto'`, most jobs waiting at one worker; beyond, the calling thread opens envelopes itself. */
export const JOBS_PER_WORKER = 64;
/** Most workers `'auto'` starts, whatever the core count. */
export const AUTO_MAX_WORKERS = 4;
/** After this many workers died unexpectedly, the pool stops starting new ones. */
const MAX_CRASHES = 3;

/** Options of {@link OpenWorkerPool}. */
export interface OpenPoolOptions {
  /** See {@link OpenWorkersSetting}. @defaultValue `'auto'` */
  readonly workers?: OpenWorkersSetting;
  /** Where the pool logs (a worker that died, the pool turned off). Never keys. */
  readonly logger?: Logger;
  /** Idle time before workers are stopped, ms. @defaultValue {@link OPEN_POOL_IDLE_MS} */
  readonly idleMs?: number;
  /** In `'auto'`: opens in flight from which the pool is used. @defaultValue {@link AUTO_IN_FLIGHT_THRESHOLD} */
  readonly autoThreshold?: number;
  /** In `'auto'`: jobs one worker may hold before the calling thread opens too. @defaultValue {@link JOBS_PER_WORKER} */
  readonly jobsPerWorker?: number;
  /** Called with each worker started (to observe it; tests stop one to see nothing is lost). */
  readonly onWorker?: (worker: OpenWorkerHandle) => void;
}

/** What {@link OpenPoolOptions.onWorker} gets of a worker thread. */
export interface OpenWorkerHandle {
  /** The worker's thread id. */
  readonly threadId: number;
  /** Stops the worker at once; the envelopes it held are opened on the calling thread. */
  terminate(): Promise<number>;
}

/** Counters of a pool. */
export interface OpenPoolStats {
  /** Worker threads alive now. */
  readonly workers: number;
  /** Envelopes opened (or refused) by a worker. */
  readonly openedInWorkers: number;
  /** Envelopes opened on the calling thread. */
  readonly openedInThread: number;
  /** Envelopes a worker held when it died, opened again on the calling thread. */
  readonly reopened: number;
}

interface Pending {
  readonly input: string | Uint8Array;
  readonly options: OpenAsyncOptions;
  readonly resolve: (opened: OpenedEnvelope) => void;
  readonly reject: (err: unknown) => void;
}

interface Thread {
  readonly worker: WorkerLike;
  ready: boolean;
  /** It threw (an uncaught error, or its script did not load). */
  failed: boolean;
  refd: boolean;
  /** Keys version this worker holds. */
  keys: number;
  readonly pending: Map<number, Pending>;
  buffer: OpenJob[];
  transfer: ArrayBuffer[];
  flushing: boolean;
}

/**
 * The worker count `'auto'` uses: one per core, at most {@link AUTO_MAX_WORKERS};
 * 0 on a single core (a worker would only add the hand-over to the same core).
 */
export function autoWorkerCount(): number {
  const os = (
    globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
  ).process?.getBuiltinModule?.('node:os') as { availableParallelism?: () => number } | undefined;
  const cores = os?.availableParallelism?.() ?? 1;
  return cores <= 1 ? 0 : Math.min(AUTO_MAX_WORKERS, cores);
}

function sameKeys(a: readonly KeyPair[], b: readonly KeyPair[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((k, i) => {
    const o = b[i]!;
    if (k === o || (k.privateKey === o.privateKey && k.publicKey === o.publicKey)) return true;
    return bytesEqual(k.privateKey, o.privateKey) && bytesEqual(k.publicKey, o.publicKey);
  });
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Whether a worker keeps the process alive: only while it holds jobs (so a
 * script awaiting an open does not exit under it); never when idle. Some
 * runtimes' worker_threads lack ref/unref: then nothing is changed.
 */
function hold(worker: WorkerLike, busy: boolean): void {
  try {
    if (busy) worker.ref();
    else worker.unref();
  } catch {
    // not supported here
  }
}

/** Envelope bytes in a buffer of their own (one copy), to be transferred: the caller's array stays usable. */
function transferable(bytes: Uint8Array): Uint8Array {
  return bytes.slice();
}

/**
 * A pool of worker threads that open envelopes. `open` has the signature
 * and the results of `openAsync`. The Agent keeps one (option `openWorkers`);
 * use one directly to open many envelopes at once with `openAsync`'s options.
 *
 * @example
 * ```ts
 * const pool = new OpenWorkerPool(); // 'auto'
 * const opened = await Promise.all(
 *   wires.map((wire) => pool.open(wire, { recipientId, keys, senderKey: (id) => directory.get(id) })),
 * );
 * await pool.close(); // optional: idle workers never keep the process alive
 * ```
 */
export class OpenWorkerPool {
  readonly #setting: OpenWorkersSetting;
  readonly #size: number;
  readonly #logger: Logger;
  readonly #idleMs: number;
  readonly #threshold: number;
  readonly #perWorker: number;
  readonly #onWorker: ((worker: OpenWorkerHandle) => void) | undefined;
  readonly #threads: Thread[] = [];
  #script: WorkerScript | undefined | null = null;
  #keys: readonly KeyPair[] = [];
  #keysVersion = 0;
  #nextId = 1;
  #inFlight = 0;
  #crashes = 0;
  #disabled = false;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  #lastUse = 0;
  #counts = { openedInWorkers: 0, openedInThread: 0, reopened: 0 };

  constructor(options: OpenPoolOptions = {}) {
    this.#setting = options.workers ?? 'auto';
    this.#size = typeof this.#setting === 'number' ? this.#setting : autoWorkerCount();
    this.#logger = options.logger ?? silentLogger;
    this.#idleMs = options.idleMs ?? OPEN_POOL_IDLE_MS;
    this.#threshold = options.autoThreshold ?? AUTO_IN_FLIGHT_THRESHOLD;
    this.#perWorker = options.jobsPerWorker ?? JOBS_PER_WORKER;
    this.#onWorker = options.onWorker;
  }

  /** Counters and the live worker count. */
  stats(): OpenPoolStats {
    return { workers: this.#threads.length, ...this.#counts };
  }

  /**
   * Opens an envelope: on a worker when the pool is in use, else here.
   *
   * @throws {@link index!CryptoError | CryptoError} and {@link index!ValidationError | ValidationError} exactly as `openAsync`.
   */
  async open(input: string | Uint8Array, options: OpenAsyncOptions): Promise<OpenedEnvelope> {
    this.#inFlight += 1;
    try {
      if (!this.#wanted(options)) return await this.#inThread(input, options);
      return await this.#pooled(input, options);
    } finally {
      this.#inFlight -= 1;
    }
  }

  /** Stops every worker; what they held is opened on the calling thread. Later opens may start new ones. */
  async close(): Promise<void> {
    this.#clearIdle();
    await Promise.all([...this.#threads].map((t) => this.#stop(t)));
  }

  #inThread(input: string | Uint8Array, options: OpenAsyncOptions): Promise<OpenedEnvelope> {
    this.#counts.openedInThread += 1;
    return openAsync(input, options);
  }

  /** Whether this open goes through the pool (starting its workers when needed). */
  #wanted(options: OpenAsyncOptions): boolean {
    if (this.#setting === false || this.#disabled || options.backend !== undefined) return false;
    if (this.#setting === 'auto' && (this.#inFlight < this.#threshold || this.#size === 0)) return false;
    this.#ensureThreads();
    return this.#threads.length > 0;
  }

  /**
   * The worker to take a job now (the one holding the fewest), or undefined
   * to open here: `'auto'` does not wait for a worker to start, nor give one
   * more than {@link JOBS_PER_WORKER}; a forced count always picks a worker.
   */
  #pick(): Thread | undefined {
    const forced = this.#setting !== 'auto';
    let best: Thread | undefined;
    for (const t of this.#threads) {
      if (!forced && !t.ready) continue;
      if (best === undefined || t.pending.size < best.pending.size) best = t;
    }
    if (best === undefined || (!forced && best.pending.size >= this.#perWorker)) return undefined;
    return best;
  }

  async #pooled(input: string | Uint8Array, options: OpenAsyncOptions): Promise<OpenedEnvelope> {
    const { keys, maxBytes, acceptLegacy } = checkOpenOptions(options);
    const senderId = peekSenderId(input);
    let senderKey: Uint8Array | undefined;
    if (senderId !== undefined) {
      try {
        const found =
          typeof options.senderKey === 'function' ? await options.senderKey(senderId) : options.senderKey;
        senderKey = found instanceof Uint8Array ? found : undefined;
      } catch {
        // The lookup's own error is part of openAsync's answer (as the cause): open here.
        return this.#inThread(input, options);
      }
    }
    // Chosen only now (after the lookup), so the jobs started together spread over the workers.
    const thread = this.#pick();
    if (thread === undefined) {
      // Every worker is starting or full: this thread opens it, with the key already looked up.
      // openAsync, not open: the calling thread must go on handing envelopes to the workers.
      this.#counts.openedInThread += 1;
      return openAsync(input, { ...options, senderKey: (id) => (id === senderId ? senderKey : undefined) });
    }
    if (!sameKeys(keys, this.#keys)) {
      this.#keys = keys;
      this.#keysVersion += 1;
    }
    return new Promise<OpenedEnvelope>((resolve, reject) => {
      const id = this.#nextId++;
      const bytes = typeof input === 'string' ? input : transferable(input);
      this.#post(thread, {
        id,
        input: bytes,
        recipientId: options.recipientId,
        senderId,
        senderKey,
        maxBytes,
        acceptLegacy,
      });
      if (typeof bytes !== 'string') thread.transfer.push(bytes.buffer as ArrayBuffer);
      thread.pending.set(id, { input, options, resolve, reject });
    });
  }

  #post(thread: Thread, job: OpenJob): void {
    if (thread.keys !== this.#keysVersion) {
      this.#flush(thread);
      // Plain pairs: the SDK's pairs keep `privateKey` non-enumerable (redacted), which a structured clone drops.
      const keys = this.#keys.map((k) => ({ publicKey: k.publicKey, privateKey: k.privateKey }));
      thread.worker.postMessage({ t: 'keys', keys } satisfies PoolMessage);
      thread.keys = this.#keysVersion;
    }
    thread.buffer.push(job);
    if (!thread.refd) {
      hold(thread.worker, true);
      thread.refd = true;
    }
    if (!thread.flushing) {
      thread.flushing = true;
      // Jobs started in the same turn of the event loop go in one message.
      setImmediate(() => this.#flush(thread));
    }
  }

  #flush(thread: Thread): void {
    thread.flushing = false;
    if (thread.buffer.length === 0) return;
    const jobs = thread.buffer;
    const transfer = thread.transfer;
    thread.buffer = [];
    thread.transfer = [];
    if (!this.#threads.includes(thread)) return;
    thread.worker.postMessage({ t: 'open', jobs } satisfies PoolMessage, transfer);
  }

  #ensureThreads(): void {
    if (this.#threads.length >= this.#size) return;
    if (this.#script === null) this.#script = workerThreads() === undefined ? undefined : findWorkerScript();
    const wt = workerThreads();
    if (this.#script === undefined || wt === undefined) {
      this.#disabled = true;
      this.#logger.debug('no worker threads here: envelopes are opened on the calling thread');
      return;
    }
    while (this.#threads.length < this.#size) {
      let worker: WorkerLike;
      try {
        const script = this.#script;
        worker =
          'url' in script
            ? new wt.Worker(script.url, { name: 'ams-open-worker' })
            : new wt.Worker(script.code, { eval: true, name: 'ams-open-worker' });
      } catch {
        this.#disabled = true;
        this.#logger.debug('worker threads could not start: envelopes are opened on the calling thread');
        return;
      }
      hold(worker, false);
      const thread: Thread = {
        worker,
        ready: false,
        failed: false,
        refd: false,
        keys: 0,
        pending: new Map(),
        buffer: [],
        transfer: [],
        flushing: false,
      };
      worker.on('message', (msg: WorkerMessage) => this.#onMessage(thread, msg));
      worker.on('error', (err: unknown) => {
        // 'exit' follows and re-opens what it held. The error is the worker's own code failing
        // (its script, the runtime): its name and message carry no key or envelope content.
        thread.failed = true;
        this.#logger.debug('an envelope worker thread failed', {
          error: (err as Error)?.name,
          message: (err as Error)?.message,
        });
      });
      worker.on('exit', () => this.#onExit(thread));
      this.#threads.push(thread);
      this.#onWorkerHook(worker);
    }
  }

  #onWorkerHook(worker: WorkerLike): void {
    try {
      this.#onWorker?.(worker);
    } catch {
      // an observer's error is not the pool's
    }
  }

  #onMessage(thread: Thread, msg: WorkerMessage): void {
    if (msg.t === 'ready') {
      thread.ready = true;
      return;
    }
    for (const r of msg.results) this.#settle(thread, r);
    if (thread.pending.size === 0 && thread.refd) {
      hold(thread.worker, false);
      thread.refd = false;
    }
    if (this.#threads.every((t) => t.pending.size === 0)) this.#armIdle();
  }

  #settle(thread: Thread, r: JobResult): void {
    const p = thread.pending.get(r.id);
    if (p === undefined) return;
    thread.pending.delete(r.id);
    this.#counts.openedInWorkers += 1;
    if ('opened' in r) p.resolve(r.opened);
    else if (r.failure.kind === 'crypto') p.reject(fromWireFailure(r.failure));
    else this.#rerun(p);
  }

  #rerun(p: Pending): void {
    this.#counts.reopened += 1;
    this.#counts.openedInThread += 1;
    openAsync(p.input, p.options).then(p.resolve, p.reject);
  }

  #onExit(thread: Thread): void {
    const i = this.#threads.indexOf(thread);
    if (i < 0) return; // stopped on purpose (its jobs were handled then)
    this.#threads.splice(i, 1);
    this.#crashes += 1;
    // A worker that failed before it was ready cannot run here (its script, the runtime): stop trying.
    if ((thread.failed && !thread.ready) || this.#crashes >= MAX_CRASHES) this.#disabled = true;
    this.#logger.warn('an envelope worker thread stopped; its envelopes are opened on the main thread', {
      held: thread.pending.size,
      poolOff: this.#disabled,
    });
    this.#drainHeld(thread);
  }

  #drainHeld(thread: Thread): void {
    const held = [...thread.pending.values()];
    thread.pending.clear();
    thread.buffer = [];
    thread.transfer = [];
    for (const p of held) this.#rerun(p);
  }

  async #stop(thread: Thread): Promise<void> {
    const i = this.#threads.indexOf(thread);
    if (i >= 0) this.#threads.splice(i, 1);
    this.#drainHeld(thread);
    await thread.worker.terminate();
  }

  #armIdle(): void {
    this.#lastUse = Date.now();
    if (this.#idleTimer !== undefined || this.#threads.length === 0) return;
    const check = (): void => {
      this.#idleTimer = undefined;
      const busy = this.#threads.some((t) => t.pending.size > 0);
      if (busy) return;
      const left = this.#lastUse + this.#idleMs - Date.now();
      if (left > 0) {
        this.#idleTimer = setTimeout(check, left);
        this.#idleTimer.unref?.();
        return;
      }
      for (const t of [...this.#threads]) void this.#stop(t);
    };
    this.#idleTimer = setTimeout(check, this.#idleMs);
    this.#idleTimer.unref?.();
  }

  #clearIdle(): void {
    if (this.#idleTimer === undefined) return;
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
  }
}
