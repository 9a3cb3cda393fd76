/**
 * Names and defaults of the webhook receiver, in one place.
 *
 * @module
 */
import { LIMITS } from '../core/limits.js';

/** The request headers of a webhook delivery (lower case, as Node and fetch report them). */
export const WEBHOOK_HEADERS = Object.freeze({
  /** Hex HMAC-SHA256 of `timestamp + "." + delivery_id + "." + raw body`. */
  signature: 'x-service-signature',
  /** Unix epoch seconds at which the service signed the delivery. */
  timestamp: 'x-service-timestamp',
  /** UUID v7 of the delivery; the de-duplication key. */
  deliveryId: 'x-service-delivery-id',
  /** The agent the delivery is for (not signed). */
  agentId: 'x-service-agent-id',
} as const);

/** Defaults of the webhook verifier and receiver. */
export const DEFAULT_WEBHOOK_OPTIONS = {
  /** Largest accepted distance between the signing time and now: 300 s. */
  toleranceMs: LIMITS.WEBHOOK_TIMESTAMP_TOLERANCE_MS,
  /** Largest accepted body: 1 MB. */
  maxBodyBytes: LIMITS.WEBHOOK_BODY_MAX_BYTES,
  /** How long a claim protects a delivery that is being handled: 10 minutes. */
  claimLeaseMs: 10 * 60 * 1000,
  /** Retry-After sent with the 429 answer to a copy that arrives while the first is still handled. */
  inFlightRetryAfterSeconds: 10,
  /** Retry-After sent with a 503 answer when the de-duplication store is full or failing. */
  storeRetryAfterSeconds: 30,
} as const satisfies Record<string, number>;

/** Longest accepted delivery id (UUIDs are 36 characters). */
export const MAX_DELIVERY_ID_LENGTH = 128;
