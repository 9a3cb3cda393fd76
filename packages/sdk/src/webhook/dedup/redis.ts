/**
 * De-duplication shared by several receiver replicas through Redis.
 *
 * - claim:    `SET <prefix><id> <random token> PX <lease> NX`; when the key
 *             exists, `GET` tells a completed id (`done`) from one in flight.
 * - complete: `SET <prefix><id> done PX <24 h>` (the completion marker).
 * - release:  compare-and-delete in one Lua script, so a replica whose lease
 *             lapsed cannot drop the claim another replica took since.
 * - renew:    compare-and-`PEXPIRE` in one Lua script (a running handler
 *             keeps its short lease alive; a dead process's claim lapses).
 *
 * The client is passed in by the caller (ioredis or anything with the same
 * `set`/`get`/`eval` methods), so Redis is never a dependency of this package.
 * TTLs are kept by Redis itself: every key is written with a `PX`, a claim's
 * never longer than the window.
 *
 * Every operation has its own time limit (`operationTimeoutMs`, 1 s by
 * default), whatever the client does while Redis is unreachable (ioredis's
 * defaults queue commands and retry them for about a minute): past it the
 * operation rejects with a `TimeoutError`, which the receiver answers 503 with
 * `Retry-After`. A claim whose `SET` still lands after its time limit is
 * released at once (compare-and-delete with its own token); if that release
 * cannot reach Redis either, the claim lapses with its lease.
 *
 * When Redis loses its keys (restarted without persistence, flushed), claims
 * wait for a grace period while every copy writes back what it handled
 * (`redis-recovery.ts`), so events handled before the loss are not handled
 * again when they come again.
 *
 * @module
 */
import { systemClock, type Clock } from '../../core/clock.js';
import { ConfigurationError } from '../../core/errors/configuration-error.js';
import { WEBHOOK_DEDUP_WINDOW_MS } from '../../core/limits/webhook.js';
import type { Logger } from '../../core/logger.js';
import { DONE } from './redis-journal.js';
import { RedisRecovery, type RedisRecoveryOptions } from './redis-recovery.js';
import { withTimeLimit } from './time-limit.js';
import type { DedupClaimResult, DedupStore } from './types.js';

/**
 * Default time limit of one store operation: 1 s. A healthy local Redis
 * answers one in well under 1 ms (median 0.04 ms; with 50 at once p99 36 ms,
 * worst 151 ms, on a loaded 2-core machine); 1 s leaves 9 s of the service's
 * 10 s webhook timeout for the handler.
 */
export const DEFAULT_REDIS_OPERATION_TIMEOUT_MS = 1000;

/**
 * The Redis commands the store uses, typed structurally; an ioredis `Redis`
 * (or `Cluster`) instance fits as is.
 */
export interface RedisClientLike {
  set(key: string, value: string, px: 'PX', milliseconds: number, nx: 'NX'): Promise<string | null>;
  set(key: string, value: string, px: 'PX', milliseconds: number): Promise<string | null>;
  get(key: string): Promise<string | null>;
  eval(script: string, numKeys: number, ...args: string[]): Promise<unknown>;
}

/** Options of {@link createRedisDedupStore}. */
export interface RedisDedupStoreOptions {
  /** A connected client (e.g. `new Redis(url)` from ioredis). Its lifecycle stays yours. */
  client: RedisClientLike;
  /** Prefix of every key. @defaultValue `'ams:webhook:dedup:'` */
  keyPrefix?: string;
  /** How long a completed id is remembered. @defaultValue `86_400_000` (24 h) */
  windowMs?: number;
  /**
   * Time limit of each operation (claim, complete, release), in ms. Past it the
   * operation rejects with a `TimeoutError` (the receiver answers 503 with
   * `Retry-After`), even when the client would keep waiting.
   * @defaultValue `1000` ({@link DEFAULT_REDIS_OPERATION_TIMEOUT_MS})
   */
  operationTimeoutMs?: number;
  /** Source of time for the time limits, the grace period and the checks. @defaultValue `systemClock` */
  clock?: Clock;
  /**
   * What happens when Redis loses its keys (restarted without persistence,
   * flushed): claims wait for a grace period while every copy writes back the
   * completions it recorded lately (docs/production.md). `false` turns it off
   * (one round trip less per claim; events in flight when Redis loses its keys
   * may then be handled twice). @defaultValue on, with {@link RedisRecoveryOptions}' defaults
   */
  recovery?: RedisRecoveryOptions | false;
  /** Told when Redis lost its keys and this process wrote its marks back. @defaultValue none */
  logger?: Logger;
}

const RECOVERING: DedupClaimResult = Object.freeze({ status: 'recovering' });
const RELEASE_SCRIPT =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

const RENEW_SCRIPT =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0";

function randomToken(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * Creates a de-duplication store on Redis, for receivers running as several
 * processes or hosts behind a load balancer: the first replica to claim an id
 * handles it; the others answer "in flight" (retried) or "completed".
 *
 * Each operation rejects with a `TimeoutError` past `operationTimeoutMs`
 * (1 s by default); other client failures are passed through as they are.
 *
 * @throws {@link index!ConfigurationError | ConfigurationError} when `client` lacks `set`/`get`/`eval`, or `windowMs` or `operationTimeoutMs` is not a positive integer.
 * @example
 * ```ts
 * import Redis from 'ioredis';
 * // Fail fast while Redis is unreachable; docs/scaling.md explains each option.
 * const client = new Redis(process.env.REDIS_URL!, {
 *   enableOfflineQueue: false,
 *   maxRetriesPerRequest: 0,
 *   connectTimeout: 2_000,
 *   commandTimeout: 1_000,
 *   retryStrategy: (times) => Math.min(times * 100, 2_000),
 * });
 * const dedup = createRedisDedupStore({ client });
 * ```
 */
export function createRedisDedupStore(options: RedisDedupStoreOptions): DedupStore {
  const { client } = options;
  for (const method of ['set', 'get', 'eval'] as const) {
    if (typeof (client as unknown as Record<string, unknown> | undefined)?.[method] !== 'function') {
      throw new ConfigurationError({
        option: 'client',
        message: `Option "client" must be a Redis client with a ${method}() method (e.g. ioredis).`,
      });
    }
  }
  const prefix = options.keyPrefix ?? 'ams:webhook:dedup:';
  const windowMs = checkPositive('windowMs', options.windowMs ?? WEBHOOK_DEDUP_WINDOW_MS);
  const ms = checkPositive(
    'operationTimeoutMs',
    options.operationTimeoutMs ?? DEFAULT_REDIS_OPERATION_TIMEOUT_MS,
  );
  const clock = options.clock ?? systemClock;
  const limited = <T>(operation: string, work: () => Promise<T>, onTimeout?: () => void): Promise<T> =>
    withTimeLimit(work, {
      ms,
      clock,
      what: `The Redis de-duplication store's ${operation}`,
      ...(onTimeout ? { onTimeout } : {}),
    });
  const release = (key: string, token: string): Promise<unknown> =>
    client.eval(RELEASE_SCRIPT, 1, key, token);
  const recovery =
    options.recovery === false
      ? undefined
      : new RedisRecovery({
          client,
          prefix,
          clock,
          limited,
          logger: options.logger,
          recovery: options.recovery ?? {},
        });
  return {
    async claim(deliveryId, leaseMs): Promise<DedupClaimResult> {
      const key = prefix + deliveryId;
      const token = randomToken();
      const lease = boundedLease(leaseMs, windowMs);
      let abandoned = false;
      const first = await limited<DedupClaimResult>(
        'claim',
        async () => {
          if ((await client.set(key, token, 'PX', lease, 'NX')) === 'OK') {
            // Landed after the time limit: nobody runs the handler for it, so free the id now.
            if (abandoned) void release(key, token).catch(() => undefined);
            return { status: 'claimed', token };
          }
          // The key vanished between the two calls (lease lapsed or released): report it as
          // in flight, which the receiver answers with a retryable status.
          return (await client.get(key)) === DONE ? { status: 'completed' } : { status: 'in_flight' };
        },
        () => {
          abandoned = true;
        },
      );
      if (first.status !== 'claimed' || recovery === undefined) return first;
      // The claim stands only if Redis still holds the generation this process knows (no loss, no grace).
      let stands: boolean;
      try {
        stands = await recovery.confirm();
      } catch (error) {
        void release(key, token).catch(() => undefined);
        throw error;
      }
      if (!stands) {
        void release(key, token).catch(() => undefined);
        return RECOVERING;
      }
      recovery.journal.claimed(key, token, lease, clock.now());
      recovery.watch();
      return first;
    },
    async complete(deliveryId) {
      const key = prefix + deliveryId;
      // Remembered first: if Redis is down now, the mark is written back when it returns.
      recovery?.journal.completed(key, windowMs, clock.now());
      recovery?.watch();
      await limited('complete', () => client.set(key, DONE, 'PX', windowMs));
    },
    async release(deliveryId, token) {
      recovery?.journal.released(prefix + deliveryId, token);
      await limited('release', () => release(prefix + deliveryId, token));
    },
    async renew(deliveryId, token, leaseMs) {
      const key = prefix + deliveryId;
      const lease = boundedLease(leaseMs, windowMs);
      const renewed = await limited('renew', () => client.eval(RENEW_SCRIPT, 1, key, token, String(lease)));
      const owned = Number(renewed) === 1;
      // Not owned (lapsed, or Redis lost its keys): the journal keeps the claim until its lease ends, so
      // a write-back after a loss restores it and the next renewal finds it again.
      if (owned) recovery?.journal.renewed(key, token, lease, clock.now());
      return owned;
    },
  };
}

function checkPositive(option: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ConfigurationError({ option, message: `Option "${option}" must be a positive integer.` });
  }
  return value;
}

/** The lease in whole ms, at least 1 and never longer than the window (so a stale claim always lapses). */
function boundedLease(leaseMs: number, windowMs: number): number {
  return Number.isNaN(leaseMs) ? windowMs : Math.min(windowMs, Math.max(1, Math.ceil(leaseMs)));
}
