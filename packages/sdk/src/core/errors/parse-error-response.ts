/**
 * Turning an HTTP error answer into a typed error. Never throws.
 *
 * @module
 */
import type { AnyErrorCode } from './codes.js';
import { RateLimitError } from './rate-limit-error.js';
import { ServiceError } from './service-error.js';
import { TransportError } from './transport-error.js';

/** Header access that fits fetch `Headers`, undici's headers and plain objects. */
export type HeaderSource =
  { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;

/** The parts of an HTTP answer needed to build an error. */
export interface ErrorResponseParts {
  /** HTTP status. */
  status: number;
  /** Response headers (any case). */
  headers?: HeaderSource | undefined;
  /** The raw body text (or already parsed JSON). */
  body: unknown;
}

/** Reads one header from any {@link HeaderSource}, case-insensitively. */
export function readHeader(headers: HeaderSource | undefined, name: string): string | undefined {
  if (headers === undefined) return undefined;
  if (typeof (headers as { get?: unknown }).get === 'function') {
    const v = (headers as { get(name: string): string | null }).get(name);
    return v ?? undefined;
  }
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (k.toLowerCase() !== lower || v === undefined) continue;
    return typeof v === 'string' ? v : v[0];
  }
  return undefined;
}

/**
 * Parses a Retry-After header value (delta-seconds or HTTP-date) into
 * milliseconds from `nowMs`. Returns undefined for anything unparsable.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) {
    const seconds = Number(trimmed);
    return Number.isFinite(seconds) ? Math.round(seconds * 1000) : undefined;
  }
  // Only HTTP-date forms (IMF-fixdate, RFC 850, asctime) all start with a day
  // name; without this check Date.parse would read '-5' or '7 s' as dates.
  if (!/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,?\s/.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function retryAfterFrom(params: Record<string, unknown>, headerMs: number | undefined): number | undefined {
  if (headerMs !== undefined) return headerMs;
  const ms = params['retry_after_ms'];
  if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) return ms;
  const s = params['retry_after'];
  // Seconds so large that they overflow once in milliseconds are no usable hint.
  const fromSeconds = typeof s === 'number' && s >= 0 ? s * 1000 : Number.NaN;
  return Number.isFinite(fromSeconds) ? fromSeconds : undefined;
}

/**
 * Builds the typed error for an HTTP error answer.
 *
 * - A body `{ error: { code, message, i18n_key, params } }` becomes a
 *   {@link ServiceError} (a {@link RateLimitError} for 429), unknown codes kept as-is.
 * - Anything else (HTML from a proxy, empty, truncated JSON) becomes a
 *   {@link TransportError} `TRANSPORT_BAD_RESPONSE` carrying the status.
 *
 * `retryAfterMs` comes from the Retry-After header, else `params.retry_after_ms`,
 * else `params.retry_after` (seconds). Never throws.
 */
export function toServiceError(parts: ErrorResponseParts, nowMs?: number): ServiceError | TransportError {
  const requestId = readHeader(parts.headers, 'x-request-id');
  const headerRetry = parseRetryAfter(readHeader(parts.headers, 'retry-after'), nowMs);
  let body: unknown = parts.body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      body = undefined;
    }
  } else if (body instanceof Uint8Array) {
    try {
      body = JSON.parse(new TextDecoder('utf-8', { fatal: false }).decode(body));
    } catch {
      body = undefined;
    }
  }
  const error = isRecord(body) ? body['error'] : undefined;
  if (!isRecord(error) || typeof error['code'] !== 'string' || error['code'].length === 0) {
    return new TransportError({
      code: 'TRANSPORT_BAD_RESPONSE',
      message: `The service answered HTTP ${parts.status} without a well-formed error object.`,
      status: parts.status,
      requestId,
      retryAfterMs: headerRetry,
    });
  }
  const code = error['code'].slice(0, 100) as AnyErrorCode;
  const params = isRecord(error['params']) ? error['params'] : {};
  const message = typeof error['message'] === 'string' ? error['message'] : code;
  const options = {
    code,
    status: parts.status,
    message,
    i18nKey: typeof error['i18n_key'] === 'string' ? error['i18n_key'] : undefined,
    params,
    retryAfterMs: retryAfterFrom(params, headerRetry),
    requestId,
  };
  if (parts.status === 429) {
    return new RateLimitError(options);
  }
  return new ServiceError(options);
}
