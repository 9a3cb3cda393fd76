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
 * @module webhook/redis
 */
export {
  createRedisDedupStore,
  DEFAULT_REDIS_OPERATION_TIMEOUT_MS,
  type RedisClientLike,
  type RedisDedupStoreOptions,
} from './dedup/redis.js';
