/**
 * De-duplication shared by several receiver replicas through Redis.
 *
 * - claim:    `SET <prefix><id> <random token> PX <lease> NX`; when the key
 *             exists, `GET` tells a completed id (`done`) from one in flight.
 * - complete: `SET <prefix><id> done PX <24 h>` (the completion marker).
 * - release:  compare-and-delete in one Lua script, so a replica whose lease
 *             lapsed cannot drop the claim another replica took since.
 *
 * The client is passed in by the caller (ioredis or anything with the same
 * `set`/`get`/`eval` methods), so Redis is never a dependency of this package.
 * TTLs are kept by Redis itself.
 *
 * @module
 */
import { ConfigurationError } from '../../core/errors/configuration-error.js';
import { WEBHOOK_DEDUP_WINDOW_MS } from '../../core/limits/webhook.js';
import type { DedupClaimResult, DedupStore } from './types.js';

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
}

const DONE = 'done';
const RELEASE_SCRIPT =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

function randomToken(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * Creates a de-duplication store on Redis, for receivers running as several
 * processes or hosts behind a load balancer: the first replica to claim an id
 * handles it; the others answer "in flight" (retried) or "completed".
 *
 * @throws {@link index!ConfigurationError | ConfigurationError} when `client` lacks `set`/`get`/`eval` or `windowMs` is not positive.
 * @example
 * ```ts
 * import Redis from 'ioredis';
 * const dedup = createRedisDedupStore({ client: new Redis(process.env.REDIS_URL!) });
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
  const windowMs = options.windowMs ?? WEBHOOK_DEDUP_WINDOW_MS;
  if (!Number.isSafeInteger(windowMs) || windowMs < 1) {
    throw new ConfigurationError({
      option: 'windowMs',
      message: 'Option "windowMs" must be a positive integer.',
    });
  }
  return {
    async claim(deliveryId, leaseMs): Promise<DedupClaimResult> {
      const key = prefix + deliveryId;
      const token = randomToken();
      if ((await client.set(key, token, 'PX', Math.max(1, Math.ceil(leaseMs)), 'NX')) === 'OK') {
        return { status: 'claimed', token };
      }
      // The key vanished between the two calls (lease lapsed or released): report it as
      // in flight, which the receiver answers with a retryable status.
      return (await client.get(key)) === DONE ? { status: 'completed' } : { status: 'in_flight' };
    },
    async complete(deliveryId) {
      await client.set(prefix + deliveryId, DONE, 'PX', windowMs);
    },
    async release(deliveryId, token) {
      await client.eval(RELEASE_SCRIPT, 1, prefix + deliveryId, token);
    },
  };
}
