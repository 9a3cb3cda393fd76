/**
 * The Redis store's answer to a Redis that lost its keys (restarted without
 * persistence, flushed, failed over to an empty replica), in the manner of an
 * NFS server's grace period after a reboot.
 *
 * Without it, an event a copy handled but whose ack had not yet reached the
 * service would be handled a second time when it came again, since its
 * completion mark was gone.
 *
 * - The store keeps a generation key, `<prefix>~generation`: a random id and
 *   the end of a grace period, no expiry. Each process remembers the id it
 *   last saw.
 * - A claim that succeeded is confirmed by reading the generation (one more
 *   round trip; a single key, so Redis Cluster works). If the key is gone
 *   while this process knew one, Redis lost its keys: the process writes a new
 *   generation with a grace period (`graceMs`), writes back what it completed
 *   or holds (`redis-journal.ts`), gives the claim back and answers
 *   `recovering`. While the grace period runs every new claim answers
 *   `recovering`: the Agent's event waits in place and asks again, the
 *   webhook receiver answers 503 and the service retries.
 * - Each process with something to protect reads the generation every
 *   `checkEveryMs` (1 s by default, within the grace of 5 s), and writes its
 *   own marks back when it finds a new one.
 * - A process that never saw a generation (a fresh store) creates one,
 *   without a grace period.
 *
 * What it cannot cover: a copy that starts for the first time in the moment
 * after Redis lost its keys and before any older copy noticed (about one
 * check interval), and the marks of a copy that died since (SIGKILL) or has
 * forgotten them (`journalMs`). docs/production.md says so.
 *
 * @module
 */
import type { Clock, TimerHandle } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import { RedisJournal } from './redis-journal.js';

/** Options of the recovery (`recovery` of `createRedisDedupStore`). */
export interface RedisRecoveryOptions {
  /**
   * How long claims wait once a copy found that Redis lost its keys, so that
   * every copy writes back what it handled first, ms. Longer than
   * `checkEveryMs` plus the time your clients take to reconnect.
   * @defaultValue `5000`
   */
  readonly graceMs?: number;
  /** How often a copy with marks to protect reads the generation, ms. @defaultValue `1000` */
  readonly checkEveryMs?: number;
  /** How long a copy remembers a completion it recorded, ms. @defaultValue `300_000` (5 min) */
  readonly journalMs?: number;
  /**
   * At most this many remembered keys per copy (the oldest are dropped); about 210 bytes of heap each.
   * @defaultValue `20_000`
   */
  readonly journalMax?: number;
}

/** Defaults of {@link RedisRecoveryOptions}. */
export const DEFAULT_REDIS_RECOVERY = {
  graceMs: 5_000,
  checkEveryMs: 1_000,
  journalMs: 300_000,
  journalMax: 20_000,
} as const;

/** The Redis commands the recovery uses (a subset of the store's client). */
export interface RecoveryClient {
  set(key: string, value: string, px: 'PX', milliseconds: number, nx: 'NX'): Promise<string | null>;
  set(key: string, value: string, px: 'PX', milliseconds: number): Promise<string | null>;
  eval(script: string, numKeys: number, ...args: string[]): Promise<unknown>;
}

/** Reads the generation: `{ id, grace left in ms }`, or `['', 0]` when there is none. */
const READ_SCRIPT = `local v = redis.call('GET', KEYS[1])
if not v then return {'', 0} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local id, ends = string.match(v, '^(.*)|(%d+)$')
if not id then return {v, 0} end
local left = tonumber(ends) - now
if left < 0 then left = 0 end
return {id, left}`;

/** Writes a generation (with `ARGV[2]` ms of grace) unless one exists; answers as READ_SCRIPT. */
const CREATE_SCRIPT = `local v = redis.call('GET', KEYS[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if not v then
  v = ARGV[1] .. '|' .. (now + tonumber(ARGV[2]))
  redis.call('SET', KEYS[1], v)
end
local id, ends = string.match(v, '^(.*)|(%d+)$')
if not id then return {v, 0} end
local left = tonumber(ends) - now
if left < 0 then left = 0 end
return {id, left}`;

/** A generation as read: its id and the grace period left, ms. */
interface Generation {
  readonly id: string;
  readonly graceLeft: number;
}

function parseGeneration(reply: unknown): Generation | undefined {
  if (!Array.isArray(reply) || reply.length !== 2) return undefined;
  const id = reply[0] instanceof Uint8Array ? new TextDecoder().decode(reply[0]) : String(reply[0]);
  return id === '' ? undefined : { id, graceLeft: Number(reply[1]) || 0 };
}

/** Marks written back at once (concurrent commands on the client). */
const RESTORE_BATCH = 256;

/** The recovery of one store instance. */
export class RedisRecovery {
  readonly journal: RedisJournal;
  readonly #client: RecoveryClient;
  readonly #key: string;
  readonly #clock: Clock;
  readonly #limited: <T>(operation: string, work: () => Promise<T>) => Promise<T>;
  readonly #logger: Logger | undefined;
  readonly #graceMs: number;
  readonly #checkEveryMs: number;
  /** The generation this process last saw and wrote its marks to. */
  #known: string | undefined;
  #recovering: Promise<void> | undefined;
  /** The write-back under way, and the generation it writes to. */
  #adopting: { readonly id: string; readonly done: Promise<void> } | undefined;
  #timer: TimerHandle | undefined;

  constructor(options: {
    readonly client: RecoveryClient;
    readonly prefix: string;
    readonly clock: Clock;
    readonly limited: <T>(operation: string, work: () => Promise<T>) => Promise<T>;
    readonly logger: Logger | undefined;
    readonly recovery: RedisRecoveryOptions;
  }) {
    const o = { ...DEFAULT_REDIS_RECOVERY, ...options.recovery };
    this.journal = new RedisJournal(o.journalMs, o.journalMax);
    this.#client = options.client;
    this.#key = `${options.prefix}~generation`;
    this.#clock = options.clock;
    this.#limited = options.limited;
    this.#logger = options.logger;
    this.#graceMs = o.graceMs;
    this.#checkEveryMs = o.checkEveryMs;
  }

  /**
   * Called after a claim succeeded: true when it may stand; false when Redis
   * lost its keys or a grace period runs (the caller gives the claim back and
   * answers `recovering`).
   */
  async confirm(): Promise<boolean> {
    await this.#recovering;
    const generation = await this.#read();
    if (generation === undefined) {
      if (this.#known === undefined) {
        // A fresh store: this process creates the first generation, with no grace.
        const created = await this.#create(0);
        this.#known = created.id;
        return created.graceLeft === 0;
      }
      await this.#recover();
      return false;
    }
    if (generation.id !== this.#known) await this.#adopt(generation.id);
    return generation.graceLeft === 0;
  }

  /** Starts the periodic check while this process has marks to protect. */
  watch(): void {
    if (this.#timer !== undefined) return;
    this.#timer = this.#clock.setTimeout(() => void this.#check(), this.#checkEveryMs, {
      background: true,
    });
  }

  async #check(): Promise<void> {
    this.#timer = undefined;
    if (!this.journal.prune(this.#clock.now())) return;
    try {
      await this.#recovering;
      const generation = await this.#read();
      if (generation === undefined) {
        if (this.#known !== undefined) await this.#recover();
      } else if (generation.id !== this.#known) {
        await this.#adopt(generation.id);
      }
    } catch {
      // Redis unreachable: nothing to write back to; the next check tries again.
    }
    this.watch();
  }

  /** Redis lost its keys: a new generation with a grace period, then this process's marks. */
  #recover(): Promise<void> {
    this.#recovering ??= (async () => {
      try {
        const created = await this.#create(this.#graceMs);
        await this.#adopt(created.id);
      } finally {
        this.#recovering = undefined;
      }
    })();
    return this.#recovering;
  }

  /** Writes this process's marks into generation `id`, then remembers it (once, however many ask at once). */
  #adopt(id: string): Promise<void> {
    if (this.#adopting?.id !== id) {
      const adopting = {
        id,
        done: this.#writeBack(id).finally(() => {
          if (this.#adopting === adopting) this.#adopting = undefined;
        }),
      };
      this.#adopting = adopting;
    }
    return this.#adopting!.done;
  }

  async #writeBack(id: string): Promise<void> {
    if (this.#known === id) return;
    if (this.#known === undefined) {
      this.#known = id;
      return;
    }
    const marks = this.journal.marks(this.#clock.now());
    for (let at = 0; at < marks.length; at += RESTORE_BATCH) {
      await Promise.all(
        marks
          .slice(at, at + RESTORE_BATCH)
          .map((m) =>
            this.#limited('restore', () =>
              m.value === 'done'
                ? this.#client.set(m.key, m.value, 'PX', m.pxLeft)
                : this.#client.set(m.key, m.value, 'PX', m.pxLeft, 'NX'),
            ),
          ),
      );
    }
    this.#known = id;
    this.#logger?.warn(
      'Redis lost the de-duplication keys (restarted empty?): this process wrote back what it handled; new claims wait for the grace period',
      { marks: marks.length, graceMs: this.#graceMs },
    );
  }

  async #read(): Promise<Generation | undefined> {
    return parseGeneration(
      await this.#limited('generation', () => this.#client.eval(READ_SCRIPT, 1, this.#key)),
    );
  }

  async #create(graceMs: number): Promise<Generation> {
    const id = globalThis.crypto.randomUUID();
    const reply = await this.#limited('generation', () =>
      this.#client.eval(CREATE_SCRIPT, 1, this.#key, id, String(graceMs)),
    );
    return parseGeneration(reply) ?? { id, graceLeft: graceMs };
  }
}
