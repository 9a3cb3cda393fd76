/**
 * `agent-messaging-sdk/webhook`: receive the service's webhook deliveries.
 *
 * Zero runtime dependencies: a verifier (node:crypto on Node, WebCrypto
 * elsewhere), a receiver flow with de-duplication (bounded in-memory or
 * Redis), `ref` fetching, and thin adapters for Node `http`, Express,
 * Fastify and fetch-style runtimes. Opening envelopes is injected (`open`),
 * typically from `agent-messaging-sdk/crypto`.
 *
 * @module
 */

// Verification and signing
export { verifyWebhook, type VerifyWebhookOptions } from './verify-webhook.js';
export {
  createWebhookVerifier,
  type WebhookVerifier,
  type WebhookVerifierOptions,
  type WebhookVerifyInput,
  type VerifiedSignature,
  type VerifiedWebhook,
} from './verify.js';
export {
  signWebhook,
  createWebhookSigner,
  type SignWebhookInput,
  type SignedWebhook,
  type WebhookSigner,
  type WebhookSignerOptions,
} from './sign.js';
export { WEBHOOK_HEADERS, DEFAULT_WEBHOOK_OPTIONS } from './constants.js';
export type { WebhookSecretInput } from './secrets.js';
export type { WebhookHeaderSource } from './headers.js';
export type { WebhookBody } from './verify-input.js';
export type { HmacBackendName } from './hmac.js';

// Delivery body
export {
  parseWebhookDelivery,
  toWebhookDelivery,
  WEBHOOK_EVENT_TYPES,
  type WebhookDelivery,
  type WebhookEventType,
  type WebhookMetadata,
  type WebhookRef,
} from './delivery.js';

// Receiver
export { createWebhookReceiver, type WebhookReceiver, type WebhookRequest } from './receiver.js';
export type { WebhookReceiverOptions } from './receiver-options.js';
export type { OpenEnvelope } from './open-step.js';
export type {
  WebhookEvent,
  DecryptFailureEvent,
  WebhookReceiverEvent,
  WebhookReceiverEventName,
} from './events.js';
export { errorResponse, okResponse, type WebhookResponse, type WebhookOutcome } from './responses.js';

// De-duplication
export type { DedupStore, DedupClaimResult } from './dedup/types.js';
export {
  createMemoryDedupStore,
  type MemoryDedupStore,
  type MemoryDedupStoreOptions,
} from './dedup/memory.js';
export { createRedisDedupStore, type RedisClientLike, type RedisDedupStoreOptions } from './dedup/redis.js';

// Object references
export { createRefFetcher, type RefFetcher, type RefFetcherOptions } from './refs/fetcher.js';
export { createRateLimiter, type RateLimiter, type RateLimiterOptions } from '../core/rate-limiter.js';
export type { FetchLike, FetchResponseLike } from './refs/http.js';

// Adapters
export { createNodeHandler, type NodeWebhookHandler } from './adapters/node.js';
export { createExpressMiddleware, type ExpressWebhookMiddleware } from './adapters/express.js';
export {
  createFastifyPlugin,
  createFastifyHandler,
  type FastifyWebhookPluginOptions,
  type FastifyWebhookHandler,
  type FastifyInstanceLike,
  type FastifyRequestLike,
  type FastifyReplyLike,
} from './adapters/fastify.js';
export { createFetchHandler, type FetchWebhookHandler, type FetchRequestLike } from './adapters/fetch.js';
export type { NodeRequestLike } from './adapters/node-body.js';
export type { NodeResponseLike } from './adapters/shared.js';

// Errors raised by this entry (also exported from the package root)
export {
  WebhookVerificationError,
  type WebhookVerificationCode,
} from '../core/errors/webhook-verification-error.js';
export {
  isWebhookVerificationError,
  isCryptoError,
  isHandlerError,
  isConfigurationError,
} from '../core/errors/guards.js';
