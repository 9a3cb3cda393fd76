/**
 * Rate limits shared by every copy of one agent through Redis, behind the
 * same {@link RateLimiter} interface as the local limiter (core/rate-limiter.ts).
 *
 * Each limit is a sliding log in one Redis sorted set: one Lua script drops
 * the starts older than the window, then either adds this start (admitted) or
 * answers how long until the oldest start leaves the window (wait). Only start
 * times and random ids are stored, with a `PX` of one window: nothing
 * content-like, no token, no key.
 *
 * When Redis fails or does not answer within `operationTimeoutMs`, the
 * limiters of one group fall back to local limits (the same figures, per
 * copy) with ONE `warn` log line, try Redis again every `retryRedisAfterMs`,
 * and go back to the shared limits (an `info` line) once it answers.
 *
 * Time comes from the caller's {@link Clock} (the copies' clocks are assumed
 * in sync, as NTP keeps them). A waiter woken by its timer counts the time it
 * waited even when the clock did not move (a frozen test clock), so a
 * limiter never stalls on a clock that stands still.
 *
 * @module
 */
import { systemClock, type Clock, type TimerHandle } from './clock.js';
import { ConfigurationError } from './errors/configuration-error.js';
import { TimeoutError } from './errors/timeout-error.js';
import { LIMITS } from './limits.js';
import { redactingLogger, silentLogger, type Logger } from './logger.js';
import { createRateLimiter, type RateLimiter } from './rate-limiter.js';

/**
 * The one Redis command the shared limiter uses, typed structurally; an
 * ioredis `Redis` (or `Cluster`) instance fits as is.
 */
export interface RedisEvalClient {
  eval(script: string, numKeys: number, ...args: string[]): Promise<unknown>;
}

/** A {@link RateLimiter} shared through Redis, with its current mode. */
export interface SharedRateLimiter extends RateLimiter {
  /** `'shared'` while Redis answers, `'local'` while it falls back to per-copy limits. */
  readonly mode: 'shared' | 'local';
}

/** Options of {@link createRedisRateLimiters}. */
export interface RedisRateLimitersOptions {
  /** A connected client (e.g. `new Redis(url)` from ioredis). Its lifecycle stays yours. */
  client: RedisEvalClient;
  /** The agent whose limits these are: every copy of one agent passes the same id. */
  agentId: string;
  /** Prefix of every key (`<prefix><agentId>:<limit>`). @defaultValue `'ams:limit:'` */
  keyPrefix?: string;
  /** Source of time and timers. @defaultValue `systemClock` */
  clock?: Clock;
  /** Where the fallback warning and the recovery line go. @defaultValue `silentLogger` */
  logger?: Logger;
  /**
   * Time limit of one Redis call, ms; past it the limiters fall back to local limits.
   * @defaultValue `1000`
   */
  operationTimeoutMs?: number;
  /** While falling back, how often Redis is tried again, ms. @defaultValue `5000` */
  retryRedisAfterMs?: number;
}

/**
 * The service's per-agent limits, shared by every copy: pass `messages`,
 * `objects` and `files` as the Agent's `rateLimiters`; `manifests` admits one
 * manifest update per minute.
 */
export interface RedisRateLimiters {
  /** Messages sent: 5 per second. */
  readonly messages: SharedRateLimiter;
  /** Object fetches: 5 per second. */
  readonly objects: SharedRateLimiter;
  /** File uploads: 5 per second. */
  readonly files: SharedRateLimiter;
  /** Manifest updates: 1 per minute. */
  readonly manifests: SharedRateLimiter;
}

/** Default time limit of one Redis call of the shared limiter, ms. */
export const DEFAULT_SHARED_LIMIT_TIMEOUT_MS = 1000;
/** Default delay between attempts to reach Redis again while falling back, ms. */
export const DEFAULT_SHARED_LIMIT_RETRY_MS = 5000;

const TAKE_SCRIPT = `
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - interval)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], interval)
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local wait = tonumber(oldest[2]) + interval - now
if wait < 1 then wait = 1 end
return wait`;

/** Health of Redis as seen by one group of limiters: one warning per outage. */
class RedisHealth {
  #down = false;
  #retryAt = 0;
  constructor(
    private readonly log: Logger,
    private readonly clock: Clock,
    private readonly retryMs: number,
  ) {}
  get down(): boolean {
    return this.#down;
  }
  /** True when the next start should ask Redis (up, or time to try again). */
  shouldTry(): boolean {
    return !this.#down || this.clock.now() >= this.#retryAt;
  }
  failed(error: unknown): void {
    this.#retryAt = this.clock.now() + this.retryMs;
    if (this.#down) return;
    this.#down = true;
    this.log.warn('shared rate limits: Redis is unreachable, using local limits per copy until it answers', {
      error: (error as Error | undefined)?.name ?? typeof error,
    });
  }
  answered(): void {
    if (!this.#down) return;
    this.#down = false;
    this.log.info('shared rate limits: Redis answers again, limits are shared again');
  }
}

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (reason: unknown) => void;
  readonly signal: AbortSignal | undefined;
  done: boolean;
}

function positive(option: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ConfigurationError({ option, message: `Option "${option}" must be a positive integer.` });
  }
  return value;
}

function randomId(): string {
  let out = '';
  for (const b of globalThis.crypto.getRandomValues(new Uint8Array(8)))
    out += b.toString(16).padStart(2, '0');
  return out;
}

interface LimiterSpec {
  readonly client: RedisEvalClient;
  readonly key: string;
  readonly limit: number;
  readonly intervalMs: number;
  readonly clock: Clock;
  readonly timeoutMs: number;
  readonly health: RedisHealth;
}

/** `work()`, or a TimeoutError after `ms` of `clock`'s time. */
function limited<T>(work: () => Promise<T>, ms: number, clock: Clock): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = clock.setTimeout(
      () =>
        reject(
          new TimeoutError({
            message: `A shared rate limit call to Redis took over ${ms} ms.`,
            timeoutMs: ms,
          }),
        ),
      ms,
    );
    let running: Promise<T>;
    try {
      running = work();
    } catch (error) {
      running = Promise.reject(error);
    }
    running.then(
      (value) => {
        clock.clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clock.clearTimeout(timer);
        reject(error);
      },
    );
  });
}

function createSharedLimiter(spec: LimiterSpec): SharedRateLimiter {
  const { clock, health } = spec;
  const local = createRateLimiter({ limit: spec.limit, intervalMs: spec.intervalMs, clock });
  const queue: Waiter[] = [];
  let running = false;
  let timer: TimerHandle | undefined;
  // The time a timer-woken waiter has provably waited until, even if the clock stood still.
  let floor = Number.NEGATIVE_INFINITY;

  const take = async (): Promise<number> => {
    const now = Math.max(clock.now(), floor);
    const answer = await limited(
      () =>
        spec.client.eval(
          TAKE_SCRIPT,
          1,
          spec.key,
          String(Math.floor(now)),
          String(spec.intervalMs),
          String(spec.limit),
          `${Math.floor(now)}:${randomId()}`,
        ),
      spec.timeoutMs,
      clock,
    );
    const wait = Number(answer);
    if (!Number.isFinite(wait) || wait < 0)
      throw new TypeError('unexpected answer from the rate limit script');
    return wait;
  };

  const pump = async (): Promise<void> => {
    if (running || timer !== undefined) return;
    running = true;
    try {
      while (queue.length > 0) {
        const w = queue[0]!;
        if (w.done) {
          queue.shift();
          continue;
        }
        if (!health.shouldTry()) {
          // Falling back: the local limiter takes over this waiter, in order.
          queue.shift();
          w.done = true;
          local.acquire(w.signal).then(w.resolve, w.reject);
          continue;
        }
        let wait: number;
        try {
          wait = await take();
          health.answered();
        } catch (error) {
          health.failed(error);
          continue; // handled by the local limiter on the next turn
        }
        if (wait === 0) {
          queue.shift();
          if (!w.done) {
            w.done = true;
            w.resolve();
          }
          continue;
        }
        const wakeAt = Math.max(clock.now(), floor) + wait;
        timer = clock.setTimeout(() => {
          timer = undefined;
          floor = Math.max(floor, wakeAt);
          void pump();
        }, wait);
        return;
      }
    } finally {
      running = false;
    }
  };

  return {
    acquire(signal) {
      if (signal?.aborted === true) return Promise.reject(signal.reason as unknown);
      return new Promise<void>((resolve, reject) => {
        const onAbort = (): void => {
          if (waiter.done) return;
          waiter.done = true;
          reject(signal?.reason as unknown);
        };
        const waiter: Waiter = {
          resolve: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
          reject: (reason) => {
            signal?.removeEventListener('abort', onAbort);
            reject(reason);
          },
          signal,
          done: false,
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        queue.push(waiter);
        void pump();
      });
    },
    get pending() {
      let n = local.pending;
      for (const w of queue) if (!w.done) n += 1;
      return n;
    },
    get mode() {
      return health.down ? 'local' : 'shared';
    },
  };
}

/**
 * Creates the service's per-agent limits (5 messages/s, 5 object fetches/s,
 * 5 uploads/s, 1 manifest update/min) shared through Redis by every copy of
 * the agent. While Redis is unreachable each copy falls back to local limits
 * (one `warn` line per outage) and returns to the shared ones when it answers.
 *
 * @throws {@link index!ConfigurationError | ConfigurationError} when `client` lacks `eval`, `agentId` is empty, or a time option is not a positive integer.
 * @example
 * ```ts
 * import Redis from 'ioredis';
 * import { Agent } from 'agent-messaging-sdk';
 * import { createRedisRateLimiters } from 'agent-messaging-sdk/webhook/redis';
 *
 * const limits = createRedisRateLimiters({ client: new Redis(process.env.REDIS_URL!), agentId, logger: console });
 * const agent = new Agent({ agentId, token, rateLimiters: limits });
 * ```
 */
export function createRedisRateLimiters(options: RedisRateLimitersOptions): RedisRateLimiters {
  const { client } = options;
  if (typeof (client as unknown as Record<string, unknown> | undefined)?.['eval'] !== 'function') {
    throw new ConfigurationError({
      option: 'client',
      message: 'Option "client" must be a Redis client with an eval() method (e.g. ioredis).',
    });
  }
  if (typeof options.agentId !== 'string' || options.agentId === '') {
    throw new ConfigurationError({
      option: 'agentId',
      message: 'Option "agentId" must be a non-empty string.',
    });
  }
  const clock = options.clock ?? systemClock;
  const timeoutMs = positive(
    'operationTimeoutMs',
    options.operationTimeoutMs ?? DEFAULT_SHARED_LIMIT_TIMEOUT_MS,
  );
  const retryMs = positive('retryRedisAfterMs', options.retryRedisAfterMs ?? DEFAULT_SHARED_LIMIT_RETRY_MS);
  const health = new RedisHealth(redactingLogger(options.logger ?? silentLogger), clock, retryMs);
  const prefix = `${options.keyPrefix ?? 'ams:limit:'}${options.agentId}:`;
  const make = (name: string, limit: number, intervalMs: number): SharedRateLimiter =>
    createSharedLimiter({ client, key: prefix + name, limit, intervalMs, clock, timeoutMs, health });
  return {
    messages: make('messages', LIMITS.MESSAGES_PER_SECOND, 1000),
    objects: make('objects', LIMITS.OBJECT_FETCHES_PER_SECOND, 1000),
    files: make('files', LIMITS.FILE_UPLOADS_PER_SECOND, 1000),
    manifests: make('manifests', LIMITS.MANIFEST_UPDATES_PER_WINDOW, LIMITS.MANIFEST_UPDATE_WINDOW_MS),
  };
}
