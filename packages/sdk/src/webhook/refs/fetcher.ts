/**
 * Fetching the ciphertext of an oversize delivery: `GET /r2/<object_key>`
 * with the agent token, at most 5 requests per second per agent (queued),
 * honouring 429 Retry-After, and checked against the `ref` (size and
 * content type) before anything is decrypted.
 *
 * Options are checked here, at construction; the network half
 * (`fetch-object.ts`) is imported on the first `ref` delivery, so the many
 * receivers that never get one do not load it.
 *
 * @module
 */
import { systemClock, type Clock } from '../../core/clock.js';
import { ConfigurationError } from '../../core/errors/configuration-error.js';
import { FILE_MAX_BYTES } from '../../core/limits/objects.js';
import { createRateLimiter, type RateLimiter } from '../../core/rate-limiter.js';
import type { WebhookRef } from '../delivery.js';
import type { ResolvedRefFetcherOptions } from './fetch-object.js';
import type { FetchLike } from './http.js';

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

/**
 * Creates the fetcher the receiver uses for `ref` deliveries.
 *
 * @throws {@link index!ConfigurationError | ConfigurationError} for a bad `baseUrl` or `agentToken`, or no fetch.
 * The returned function rejects with {@link index!ServiceError | ServiceError}/{@link index!RateLimitError | RateLimitError}
 * (the service refused), {@link index!TransportError | TransportError} (network, or the object does not
 * match its ref) or {@link index!TimeoutError | TimeoutError}.
 * @example
 * ```ts
 * const fetchRef = createRefFetcher({ baseUrl: 'https://api.example.com', agentToken: process.env.AGENT_TOKEN! });
 * const receiver = createWebhookReceiver({ secret, open, fetchRef, handler });
 * ```
 */
export function createRefFetcher(options: RefFetcherOptions): RefFetcher {
  const { base, fetch } = checkOptions(options);
  const clock = options.clock ?? systemClock;
  const resolved: ResolvedRefFetcherOptions = {
    base,
    fetch,
    clock,
    authorization: `Bearer ${options.agentToken}`,
    limiter: options.limiter ?? createRateLimiter({ clock }),
    timeoutMs: options.timeoutMs ?? 8000,
    maxAttempts: options.maxAttempts ?? 3,
    maxRetryWaitMs: options.maxRetryWaitMs ?? 5000,
    maxBytes: FILE_MAX_BYTES,
  };
  let fetchObject:
    Promise<(o: ResolvedRefFetcherOptions, ref: WebhookRef) => Promise<Uint8Array>> | undefined;
  return async (ref) => {
    fetchObject ??= import('./fetch-object.js').then((m) => m.fetchObject);
    return (await fetchObject)(resolved, ref);
  };
}
