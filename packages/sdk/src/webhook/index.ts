/**
 * `agent-messaging-sdk/webhook`: receive the service's webhook deliveries.
 *
 * Zero runtime dependencies: a verifier (node:crypto on Node, WebCrypto
 * elsewhere), the framework-neutral receiver flow with the bounded in-memory
 * de-duplication store, and `ref` fetching. Opening envelopes is injected
 * (`open`), typically from `agent-messaging-sdk/crypto`.
 *
 * Framework adapters and the Redis store are separate entries, so an app
 * loads only what it uses: `./webhook/node`, `./webhook/express`,
 * `./webhook/fastify`, `./webhook/fetch` and `./webhook/redis`.
 *
 * @module webhook
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
export {
  WEBHOOK_HEADERS,
  DEFAULT_WEBHOOK_OPTIONS,
  type WebhookHeaderNames,
  type DefaultWebhookOptions,
} from './constants.js';
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

// Object references
export { createRefFetcher, type RefFetcher, type RefFetcherOptions } from './refs/fetcher.js';
export { createRateLimiter, type RateLimiter, type RateLimiterOptions } from '../core/rate-limiter.js';
export type { FetchLike, FetchResponseLike } from './refs/http.js';

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
