/**
 * Fetching the ciphertext of an oversize delivery: `GET /r2/<object_key>`
 * with the agent token, at most 5 requests per second per agent (queued),
 * honouring 429 Retry-After, and checked against the `ref` (size and
 * content type) before anything is decrypted.
 *
 * @module
 */
import { systemClock, type Clock } from '../../core/clock.js';
import { ConfigurationError } from '../../core/errors/configuration-error.js';
import { isAmsError, isServiceError, isTimeoutError, isTransportError } from '../../core/errors/guards.js';
import { toServiceError } from '../../core/errors/parse-error-response.js';
import { TimeoutError } from '../../core/errors/timeout-error.js';
import { TransportError } from '../../core/errors/transport-error.js';
import { LIMITS } from '../../core/limits.js';
import type { WebhookRef } from '../delivery.js';
import { createRateLimiter, type RateLimiter } from '../../core/rate-limiter.js';
import { discard, readLimited, sleep, type FetchLike, type FetchResponseLike } from './http.js';

/** Options of {@link createRefFetcher}. */
export interface RefFetcherOptions {
  /** The service's base URL, e.g. `https://api.example.com`. */
  baseUrl: string | URL;
  /** The agent token (`hsk_…`); sent as `Authorization: Bearer`, never in the URL. */
  agentToken: string;
  /** The fetch to use. @defaultValue `globalThis.fetch` */
  fetch?: FetchLike;
  /** Source of time and timers (limiter, back-off, timeouts). @defaultValue `systemClock` */
  clock?: Clock;
  /** Limiter to share between fetchers of one agent. @defaultValue a new 5 requests/s limiter */
  limiter?: RateLimiter;
  /** Deadline of one attempt; the service waits 10 s for the whole delivery. @defaultValue `8000` */
  timeoutMs?: number;
  /** Attempts for 429, 502–504, network errors and timeouts. @defaultValue `3` */
  maxAttempts?: number;
  /** Longest wait before a retry; a longer Retry-After fails at once so the service retries later. @defaultValue `5000` */
  maxRetryWaitMs?: number;
}

/** Fetches the ciphertext a `ref` points to. */
export type RefFetcher = (ref: WebhookRef) => Promise<Uint8Array>;

const RETRYABLE = new Set([429, 502, 503, 504]);

/** Timeouts, network failures and 429/502/503/504 answers are worth another attempt. */
function isRetryable(err: unknown): boolean {
  if (isTimeoutError(err)) return true;
  if (isTransportError(err)) return err.code === 'TRANSPORT_NETWORK' || RETRYABLE.has(err.status ?? 0);
  return isServiceError(err) && RETRYABLE.has(err.status);
}

function mediaType(value: string | null): string | undefined {
  return value?.split(';')[0]?.trim().toLowerCase() || undefined;
}

function objectUrl(base: string, objectKey: string): string {
  return `${base}/r2/${objectKey.split('/').map(encodeURIComponent).join('/')}`;
}

function checkOptions(options: RefFetcherOptions): { base: string; fetch: FetchLike } {
  let url: URL;
  try {
    url = new URL(String(options.baseUrl));
  } catch (cause) {
    throw new ConfigurationError({
      option: 'baseUrl',
      message: 'Option "baseUrl" must be an absolute http(s) URL.',
      cause,
    });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigurationError({
      option: 'baseUrl',
      message: 'Option "baseUrl" must be an absolute http(s) URL.',
    });
  }
  if (typeof options.agentToken !== 'string' || !/^hsk_[A-Za-z0-9]+$/.test(options.agentToken)) {
    throw new ConfigurationError({
      option: 'agentToken',
      message: 'Option "agentToken" must be an agent token (hsk_ followed by base62).',
    });
  }
  const fetchImpl = options.fetch ?? (globalThis.fetch as FetchLike | undefined);
  if (typeof fetchImpl !== 'function') {
    throw new ConfigurationError({ option: 'fetch', message: 'No global fetch here: pass option "fetch".' });
  }
  return { base: url.href.replace(/\/+$/, ''), fetch: fetchImpl };
}

async function checkedBody(res: FetchResponseLike, ref: WebhookRef): Promise<Uint8Array> {
  const bad = (what: string): TransportError =>
    new TransportError({
      code: 'TRANSPORT_BAD_RESPONSE',
      status: res.status,
      message: `The referenced object does not match its ref: ${what}.`,
    });
  if (mediaType(res.headers.get('content-type')) !== mediaType(ref.content_type)) {
    discard(res.body);
    throw bad('content type differs');
  }
  const length = res.headers.get('content-length');
  if (length !== null && Number(length) !== ref.size) {
    discard(res.body);
    throw bad('Content-Length differs from ref.size');
  }
  const bytes = await readLimited(res.body, ref.size);
  if (bytes === undefined || bytes.length !== ref.size) throw bad('size differs from ref.size');
  return bytes;
}

/**
 * Creates the fetcher the receiver uses for `ref` deliveries.
 *
 * @throws {@link ConfigurationError} for a bad `baseUrl` or `agentToken`, or no fetch.
 * The returned function rejects with {@link ServiceError}/{@link RateLimitError}
 * (the service refused), {@link TransportError} (network, or the object does not
 * match its ref) or {@link TimeoutError}.
 * @example
 * ```ts
 * const fetchRef = createRefFetcher({ baseUrl: 'https://api.example.com', agentToken: process.env.AGENT_TOKEN! });
 * const receiver = createWebhookReceiver({ secret, open, fetchRef, handler });
 * ```
 */
export function createRefFetcher(options: RefFetcherOptions): RefFetcher {
  const { base, fetch: fetchImpl } = checkOptions(options);
  const clock = options.clock ?? systemClock;
  const limiter = options.limiter ?? createRateLimiter({ clock });
  const timeoutMs = options.timeoutMs ?? 8000;
  const maxAttempts = options.maxAttempts ?? 3;
  const maxRetryWaitMs = options.maxRetryWaitMs ?? 5000;
  const authorization = `Bearer ${options.agentToken}`;

  const attempt = async (ref: WebhookRef): Promise<Uint8Array> => {
    await limiter.acquire();
    const controller = new AbortController();
    const timer = clock.setTimeout(() => controller.abort(), timeoutMs);
    try {
      const res = await fetchImpl(objectUrl(base, ref.object_key), {
        method: 'GET',
        headers: { authorization, accept: ref.content_type },
        signal: controller.signal,
      });
      if (res.status >= 200 && res.status < 300) return await checkedBody(res, ref);
      const text = new TextDecoder().decode((await readLimited(res.body, 64 * 1024)) ?? new Uint8Array());
      throw toServiceError({ status: res.status, headers: res.headers, body: text }, clock.now());
    } catch (cause) {
      if (isAmsError(cause)) throw cause;
      if (controller.signal.aborted) {
        throw new TimeoutError({ message: 'Fetching the referenced object timed out.', timeoutMs, cause });
      }
      throw new TransportError({
        code: 'TRANSPORT_NETWORK',
        message: 'Fetching the referenced object failed.',
        cause,
      });
    } finally {
      clock.clearTimeout(timer);
    }
  };

  return async (ref) => {
    if (ref.size > LIMITS.FILE_MAX_BYTES) {
      throw new TransportError({
        code: 'TRANSPORT_BAD_RESPONSE',
        message: 'The referenced object is larger than 100 MB.',
      });
    }
    for (let n = 1; ; n++) {
      try {
        return await attempt(ref);
      } catch (err) {
        const waitMs = (err as { retryAfterMs?: number }).retryAfterMs ?? 250 * 2 ** (n - 1);
        if (!isRetryable(err) || n >= maxAttempts || waitMs > maxRetryWaitMs) throw err;
        await sleep(clock, waitMs);
      }
    }
  };
}
