/**
 * The REST client's retry policy: which failures are worth another attempt,
 * and how long to wait before it (full-jitter exponential back-off, with a
 * service-given Retry-After as the minimum).
 *
 * Retried: 429 (any method: the service did not act on the request), 502,
 * 503 and 504 (the service interface says "temporarily unavailable, retry per
 * Retry-After"), and, for idempotent requests only, network errors and
 * timeouts (a POST may have reached the service before the connection broke).
 * Never retried: terminal codes, every other 4xx, validation failures.
 *
 * @module
 */
import { isTerminalCode } from '../../core/errors/codes.js';
import { isAmsError, isServiceError, isTimeoutError, isTransportError } from '../../core/errors/guards.js';

/** Why a request is retried. */
export type RetryReason = 'rate_limited' | 'unavailable' | 'network' | 'timeout';

const UNAVAILABLE: ReadonlySet<number> = new Set([502, 503, 504]);

/**
 * The reason to retry after `err`, or `undefined` when it must surface.
 *
 * @param idempotent - whether repeating the request is harmless (GET, HEAD,
 * PUT, DELETE, or a request marked idempotent).
 */
export function retryReasonOf(err: unknown, idempotent: boolean): RetryReason | undefined {
  if (!isAmsError(err) || isTerminalCode(err.code)) return undefined;
  if (isServiceError(err) || (isTransportError(err) && err.code === 'TRANSPORT_BAD_RESPONSE')) {
    if (err.status === 429) return 'rate_limited';
    if (err.status !== undefined && UNAVAILABLE.has(err.status)) return 'unavailable';
    return undefined;
  }
  if (!idempotent) return undefined;
  if (isTransportError(err) && err.code === 'TRANSPORT_NETWORK') return 'network';
  if (isTimeoutError(err)) return 'timeout';
  return undefined;
}

/**
 * Full-jitter exponential back-off: a uniformly random delay in
 * `[0, min(capMs, baseMs * 2^(retry-1))]`.
 *
 * @param retry - 1 for the first retry, 2 for the second, …
 * @param random - returns values in [0, 1).
 */
export function fullJitterDelay(retry: number, baseMs: number, capMs: number, random: () => number): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, retry - 1));
  const r = random();
  const unit = Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0;
  return Math.floor(unit * ceiling);
}

/** Policy figures needed by {@link retryDelayFor}. */
export interface RetryDelayPolicy {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly random: () => number;
}

/**
 * The wait before retry number `retry` after `err`: the jittered back-off,
 * raised to the error's `retryAfterMs` (Retry-After header or
 * `params.retry_after_ms`) when that is longer.
 */
export function retryDelayFor(err: unknown, retry: number, policy: RetryDelayPolicy): number {
  const jitter = fullJitterDelay(retry, policy.baseDelayMs, policy.maxDelayMs, policy.random);
  const after = isAmsError(err) ? err.retryAfterMs : undefined;
  return after !== undefined && Number.isFinite(after) && after > jitter ? Math.ceil(after) : jitter;
}

const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** True for methods that are idempotent by definition (RFC 9110). */
export function isIdempotentMethod(method: string): boolean {
  return IDEMPOTENT_METHODS.has(method.toUpperCase());
}
