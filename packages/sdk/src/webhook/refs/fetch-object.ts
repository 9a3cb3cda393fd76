/**
 * The network half of the ref fetcher: one `GET /r2/<object_key>` with
 * retries, and the checks of the answer against its `ref`. Loaded on the
 * first `ref` delivery (see `fetcher.ts`), so receivers that never get one
 * never load it.
 *
 * @module
 */
import type { Clock } from '../../core/clock.js';
import { isAmsError, isServiceError, isTimeoutError, isTransportError } from '../../core/errors/guards.js';
import { toServiceError } from '../../core/errors/parse-error-response.js';
import { TimeoutError } from '../../core/errors/timeout-error.js';
import { TransportError } from '../../core/errors/transport-error.js';
import type { RateLimiter } from '../../core/rate-limiter.js';
import type { WebhookRef } from '../delivery.js';
import { discard, readLimited, sleep, type FetchLike, type FetchResponseLike } from './http.js';

/** Options of the fetcher after defaults, as `createRefFetcher` resolves them. */
export interface ResolvedRefFetcherOptions {
  /** Base URL without a trailing slash. */
  readonly base: string;
  readonly authorization: string;
  readonly fetch: FetchLike;
  readonly clock: Clock;
  readonly limiter: RateLimiter;
  readonly timeoutMs: number;
  readonly maxAttempts: number;
  readonly maxRetryWaitMs: number;
  /** Larger refs are refused before any request. */
  readonly maxBytes: number;
}

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

async function attempt(o: ResolvedRefFetcherOptions, ref: WebhookRef): Promise<Uint8Array> {
  await o.limiter.acquire();
  const controller = new AbortController();
  const timer = o.clock.setTimeout(() => controller.abort(), o.timeoutMs);
  try {
    const answer = o.fetch(objectUrl(o.base, ref.object_key), {
      method: 'GET',
      headers: { authorization: o.authorization, accept: ref.content_type },
      signal: controller.signal,
    });
    o.clock.track?.(answer);
    const res = await answer;
    if (res.status >= 200 && res.status < 300) return await checkedBody(res, ref);
    const text = new TextDecoder().decode((await readLimited(res.body, 64 * 1024)) ?? new Uint8Array());
    throw toServiceError({ status: res.status, headers: res.headers, body: text }, o.clock.now());
  } catch (cause) {
    if (isAmsError(cause)) throw cause;
    if (controller.signal.aborted) {
      throw new TimeoutError({
        message: 'Fetching the referenced object timed out.',
        timeoutMs: o.timeoutMs,
        cause,
      });
    }
    throw new TransportError({
      code: 'TRANSPORT_NETWORK',
      message: 'Fetching the referenced object failed.',
      cause,
    });
  } finally {
    o.clock.clearTimeout(timer);
  }
}

/**
 * Fetches the ciphertext `ref` points to: up to `maxAttempts` tries for
 * retryable failures, waiting Retry-After (or 250 ms doubling) in between,
 * unless the wait exceeds `maxRetryWaitMs`.
 */
export async function fetchObject(o: ResolvedRefFetcherOptions, ref: WebhookRef): Promise<Uint8Array> {
  if (ref.size > o.maxBytes) {
    throw new TransportError({
      code: 'TRANSPORT_BAD_RESPONSE',
      message: 'The referenced object is larger than 100 MB.',
    });
  }
  for (let n = 1; ; n++) {
    try {
      return await attempt(o, ref);
    } catch (err) {
      const waitMs = (err as { retryAfterMs?: number }).retryAfterMs ?? 250 * 2 ** (n - 1);
      if (!isRetryable(err) || n >= o.maxAttempts || waitMs > o.maxRetryWaitMs) throw err;
      await sleep(o.clock, waitMs);
    }
  }
}
