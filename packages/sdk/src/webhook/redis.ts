/**
 * `agent-messaging-sdk/webhook/redis`: de-duplication shared by several
 * receiver replicas through Redis. The client is passed in (ioredis or any
 * client with the same `set`/`get`/`eval`), so Redis is never a dependency.
 *
 * @example
 * ```ts
 * import Redis from 'ioredis';
 * import { createWebhookReceiver } from 'agent-messaging-sdk/webhook';
 * import { createRedisDedupStore } from 'agent-messaging-sdk/webhook/redis';
 *
 * const dedup = createRedisDedupStore({ client: new Redis(process.env.REDIS_URL!) });
 * const receiver = createWebhookReceiver({ secret, handler, dedup });
 * ```
 *
 * The same entry holds the per-agent send limits shared by every copy of an
 * agent ({@link createRedisRateLimiters}).
 *
 * @module webhook/redis
 */
export {
  createRedisDedupStore,
  DEFAULT_REDIS_OPERATION_TIMEOUT_MS,
  type RedisClientLike,
  type RedisDedupStoreOptions,
} from './dedup/redis.js';
export { DEFAULT_REDIS_RECOVERY, type RedisRecoveryOptions } from './dedup/redis-recovery.js';
export {
  createRedisRateLimiters,
  DEFAULT_SHARED_LIMIT_RETRY_MS,
  DEFAULT_SHARED_LIMIT_TIMEOUT_MS,
  type RedisEvalClient,
  type RedisRateLimiters,
  type RedisRateLimitersOptions,
  type SharedRateLimiter,
} from '../core/redis-rate-limiter.js';
