/**
 * Names and defaults of the webhook receiver, in one place.
 *
 * @module
 */
import { WEBHOOK_BODY_MAX_BYTES, WEBHOOK_TIMESTAMP_TOLERANCE_MS } from '../core/limits/webhook.js';

/** The type of {@link WEBHOOK_HEADERS}. */
export interface WebhookHeaderNames {
  /** Hex HMAC-SHA256 of `timestamp + "." + delivery_id + "." + raw body`. */
  readonly signature: 'x-service-signature';
  /** Unix epoch seconds at which the service signed the delivery. */
  readonly timestamp: 'x-service-timestamp';
  /** UUID v7 of the delivery; the de-duplication key. */
  readonly deliveryId: 'x-service-delivery-id';
  /** The agent the delivery is for (not signed). */
  readonly agentId: 'x-service-agent-id';
}

/** The request headers of a webhook delivery (lower case, as Node and fetch report them). */
export const WEBHOOK_HEADERS: WebhookHeaderNames = /* @__PURE__ */ Object.freeze({
  signature: 'x-service-signature',
  timestamp: 'x-service-timestamp',
  deliveryId: 'x-service-delivery-id',
  agentId: 'x-service-agent-id',
});

/** The type of {@link DEFAULT_WEBHOOK_OPTIONS}. */
export interface DefaultWebhookOptions {
  /** Largest accepted distance between the signing time and now: 300 s. */
  readonly toleranceMs: number;
  /** Largest accepted body: 1 MB. */
  readonly maxBodyBytes: number;
  /** How long a claim protects a delivery that is being handled: 10 minutes. */
  readonly claimLeaseMs: number;
  /** Retry-After sent with the 429 answer to a copy that arrives while the first is still handled. */
  readonly inFlightRetryAfterSeconds: number;
  /** Retry-After sent with a 503 answer when the de-duplication store is full or failing. */
  readonly storeRetryAfterSeconds: number;
}

/** Defaults of the webhook verifier and receiver. */
export const DEFAULT_WEBHOOK_OPTIONS: DefaultWebhookOptions = /* @__PURE__ */ Object.freeze({
  toleranceMs: WEBHOOK_TIMESTAMP_TOLERANCE_MS,
  maxBodyBytes: WEBHOOK_BODY_MAX_BYTES,
  claimLeaseMs: 10 * 60 * 1000,
  inFlightRetryAfterSeconds: 10,
  storeRetryAfterSeconds: 30,
});

/** Longest accepted delivery id (UUIDs are 36 characters). */
export const MAX_DELIVERY_ID_LENGTH = 128;
