/**
 * Events of the REST client.
 *
 * @module
 */
import type { RetryReason } from './retry.js';

/** Payload of `rateLimited`: the service answered 429 despite the client-side limits. */
export interface RateLimitedInfo {
  /** `METHOD /path` (no query). */
  readonly request: string;
  /** The service's code, e.g. `MESSAGE_RATE_LIMITED` (`TRANSPORT_BAD_RESPONSE` for a non-JSON 429). */
  readonly code: string;
  /** The wait the service asked for, when it said. */
  readonly retryAfterMs: number | undefined;
  /** Attempt number that was limited (1 = first). */
  readonly attempt: number;
}

/** Payload of `retry`: a failed attempt will be repeated after `delayMs`. */
export interface RetryInfo {
  /** `METHOD /path` (no query). */
  readonly request: string;
  /** Why. */
  readonly reason: RetryReason;
  /** The failed attempt's error code. */
  readonly code: string;
  /** The attempt that failed (1 = first). */
  readonly attempt: number;
  /** The wait before the next attempt. */
  readonly delayMs: number;
}

/** Event map of the REST client (event name → listener arguments). */
export interface RestClientEvents {
  /** The service answered 429 (the request will be retried if the budget allows). */
  rateLimited: [info: RateLimitedInfo];
  /** A failed attempt will be retried. */
  retry: [info: RetryInfo];
}

/** An event name of the REST client. */
export type RestClientEventName = keyof RestClientEvents;
