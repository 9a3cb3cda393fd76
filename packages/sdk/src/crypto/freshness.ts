/**
 * Replay protection by time: receivers refuse a validly signed envelope whose
 * signed `created_at` lies outside an acceptance window around their clock,
 * and de-duplicate message ids for at least as long as the window lasts, so
 * an old "approve" re-delivered by a hostile relay is refused either way.
 *
 * The window is as long as a delivery can legitimately wait: the service
 * keeps pending deliveries for 24 h ({@link LIMITS}`.PENDING_QUEUE_TTL_MS`),
 * plus a clock-skew allowance of 5 minutes between the sender's clock and
 * the receiver's. An envelope is accepted when
 *
 *     now − (24 h + 5 min) ≤ created_at ≤ now + 5 min
 *
 * and message ids are remembered for {@link MESSAGE_DEDUP_MEMORY_MS} (25 h),
 * longer than the longest span (24 h + 10 min) over which one envelope can
 * stay acceptable.
 *
 * @module
 */
import type { CryptoError } from '../core/errors/crypto-error.js';
import { LIMITS } from '../core/limits.js';
import { HOUR_MS, MINUTE_MS } from '../core/limits/units.js';
import { decryptFailure } from './envelope-errors.js';

/** Largest accepted difference between the sender's clock and the receiver's: 5 minutes. */
export const MAX_CLOCK_SKEW_MS = 5 * MINUTE_MS;

/** Oldest accepted envelope: the 24 h a delivery may wait in the pending queue, plus the skew allowance. */
export const MAX_ENVELOPE_AGE_MS = LIMITS.PENDING_QUEUE_TTL_MS + MAX_CLOCK_SKEW_MS;

/**
 * How long receivers remember a handled message id: 25 h, at least
 * {@link MAX_ENVELOPE_AGE_MS} + {@link MAX_CLOCK_SKEW_MS} (an envelope dated
 * 5 minutes ahead stays acceptable for 24 h 10 min after it arrives).
 */
export const MESSAGE_DEDUP_MEMORY_MS = 25 * HOUR_MS;

/** The acceptance window of a signed `created_at`. */
export interface FreshnessWindow {
  /** Oldest accepted age, ms. @defaultValue {@link MAX_ENVELOPE_AGE_MS} */
  readonly maxAgeMs: number;
  /** Furthest accepted time in the future, ms. @defaultValue {@link MAX_CLOCK_SKEW_MS} */
  readonly maxSkewMs: number;
}

/** The default window: 24 h + 5 min into the past, 5 min into the future. */
export const DEFAULT_FRESHNESS_WINDOW: FreshnessWindow = Object.freeze({
  maxAgeMs: MAX_ENVELOPE_AGE_MS,
  maxSkewMs: MAX_CLOCK_SKEW_MS,
});

/**
 * The `DECRYPT_FAILURE` with reason `stale` when `createdAt` (the signed ISO
 * 8601 time of an opened envelope) lies outside `window` around `nowMs`;
 * `undefined` when it is inside.
 */
export function freshnessFailure(
  createdAt: string,
  nowMs: number,
  window: FreshnessWindow = DEFAULT_FRESHNESS_WINDOW,
): CryptoError | undefined {
  const at = Date.parse(createdAt);
  if (!Number.isFinite(at)) return decryptFailure('stale', undefined, 'created_at is not a time');
  if (at < nowMs - window.maxAgeMs) return decryptFailure('stale', undefined, 'created_at is too old');
  if (at > nowMs + window.maxSkewMs) {
    return decryptFailure('stale', undefined, 'created_at is too far in the future');
  }
  return undefined;
}
