/**
 * The receiver response table and the retry schedule, as pure functions.
 *
 * | Receiver answer | Outcome |
 * |---|---|
 * | 200, 201, 204 | delivered |
 * | 429 with a usable Retry-After | throttled: retry after that time, schedule position unchanged |
 * | 429 without a usable Retry-After | temporary failure (`http_429`) |
 * | other 4xx | permanent failure (`http_4xx`), no retry |
 * | 5xx | temporary failure (`http_5xx`) |
 * | any other status (1xx, other 2xx, 3xx: redirects are not followed) | temporary failure (`http_<n>xx`) |
 * | no answer within the timeout | temporary failure (`timeout`) |
 * | connection refused, reset, DNS, TLS | temporary failure (`network`) |
 *
 * After failure N (1 to 7) the next attempt follows after
 * `WEBHOOK_RETRY_SCHEDULE_MS[N - 1]` (0, 30 s, 2 min, 8 min, 32 min, 2 h, 6 h);
 * the 8th failure marks the agent `unreachable`.
 *
 * @module
 */
import { WEBHOOK_MAX_FAILURES, WEBHOOK_RETRY_SCHEDULE_MS } from 'agent-messaging-sdk/protocol';

/** What one attempt's answer means for the delivery. */
export type AttemptOutcome =
  | { readonly kind: 'delivered'; readonly status: number }
  | { readonly kind: 'permanent'; readonly errorClass: string; readonly status: number }
  | { readonly kind: 'temporary'; readonly errorClass: string; readonly status?: number }
  | { readonly kind: 'throttled'; readonly retryAfterMs: number };

/** Bounds applied to a receiver's Retry-After. */
export const RETRY_AFTER_BOUNDS_MS = Object.freeze({
  /** A Retry-After of 0 still waits 1 s, so a receiver cannot make the engine spin. */
  min: 1_000,
  /** The longest step of the schedule (6 h); longer values are cut to it. */
  max: 6 * 60 * 60 * 1_000,
});

const DELIVERED = new Set([200, 201, 204]);

/**
 * Reads a Retry-After value: delta-seconds (`"120"`) or an HTTP date, relative
 * to `nowMs`. Returns ms clamped to {@link RETRY_AFTER_BOUNDS_MS}, or
 * `undefined` when the value is missing or unusable.
 *
 * @example
 * ```ts
 * parseRetryAfter('5', Date.now()); // 5000
 * ```
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  let ms: number;
  if (/^\d{1,12}$/.test(text)) ms = Number(text) * 1_000;
  else if (/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    ms = at - nowMs;
  } else return undefined;
  return Math.min(RETRY_AFTER_BOUNDS_MS.max, Math.max(RETRY_AFTER_BOUNDS_MS.min, ms));
}

/** `http_4xx`, `http_5xx`, … for a status. */
export function statusClass(status: number): string {
  return `http_${Math.floor(status / 100)}xx`;
}

/**
 * The outcome of a receiver's HTTP answer.
 *
 * @param retryAfter - the Retry-After header, if any.
 * @param nowMs - the engine's now (for HTTP-date Retry-After values).
 */
export function classifyResponse(
  status: number,
  retryAfter: string | undefined,
  nowMs: number,
): AttemptOutcome {
  if (DELIVERED.has(status)) return { kind: 'delivered', status };
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(retryAfter, nowMs);
    return retryAfterMs === undefined
      ? { kind: 'temporary', errorClass: 'http_429', status }
      : { kind: 'throttled', retryAfterMs };
  }
  if (status >= 400 && status < 500) return { kind: 'permanent', errorClass: statusClass(status), status };
  return { kind: 'temporary', errorClass: statusClass(status), status };
}

/**
 * The wait before the next attempt after the `failures`-th consecutive
 * temporary failure, or `undefined` when retries stop (the agent becomes
 * `unreachable`).
 *
 * @example
 * ```ts
 * nextRetryDelayMs(1); // 0 (immediately)
 * nextRetryDelayMs(7); // 21_600_000 (6 h)
 * nextRetryDelayMs(8); // undefined → unreachable
 * ```
 */
export function nextRetryDelayMs(failures: number): number | undefined {
  if (!Number.isInteger(failures) || failures < 1 || failures >= WEBHOOK_MAX_FAILURES) return undefined;
  return WEBHOOK_RETRY_SCHEDULE_MS[failures - 1];
}
