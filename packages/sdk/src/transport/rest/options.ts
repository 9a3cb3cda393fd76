/**
 * Options of the REST client: what callers pass, the defaults in one place,
 * and their validation at construction.
 *
 * @module
 */
import type { Dispatcher } from 'undici';
import { systemClock, type Clock, type TimerOptions } from '../../core/clock.js';
import { ConfigurationError } from '../../core/errors/configuration-error.js';
import { LIMITS } from '../../core/limits.js';
import { redactingLogger, silentLogger, type Logger } from '../../core/logger.js';
import type { RateLimiter } from '../../core/rate-limiter.js';
import { emptyBaseUrl } from '../../core/empty-base-url.js';

/** Gives the bearer token for the next request: an agent token (`hsk_…`) or a user access JWT. */
export type CredentialsProvider = () => string | Promise<string>;

/** Waits `ms` milliseconds (rejecting if `signal` aborts); `options.window` marks a wait on the service's rate window (a 429). */
export type SleepFn = (ms: number, signal?: AbortSignal, options?: TimerOptions) => Promise<void>;

/** Retry behaviour of the REST client. */
export interface RetryOptions {
  /**
   * Attempts per request, the first included; 1 disables retries.
   * @defaultValue `5`
   */
  maxAttempts?: number;
  /**
   * Back-off base: the n-th retry waits a uniformly random time in
   * `[0, min(maxDelayMs, baseDelayMs * 2^(n-1))]` (full jitter).
   * @defaultValue `300`
   */
  baseDelayMs?: number;
  /**
   * Cap of the jittered back-off. A longer Retry-After is still honoured, within `maxTotalWaitMs`.
   * @defaultValue `10000`
   */
  maxDelayMs?: number;
  /**
   * Total time one request may spend waiting between attempts. When the next
   * wait would exceed it, the last error surfaces instead (so a 24-hour
   * Retry-After fails at once rather than hanging).
   * @defaultValue `30000`
   */
  maxTotalWaitMs?: number;
  /**
   * Source of randomness for the jitter, returning values in [0, 1).
   * @defaultValue `Math.random`
   */
  random?: () => number;
}

/** Client-side rate limits per agent (requests per second), so a busy agent queues instead of meeting 429. */
export interface ClientRateLimits {
  /** `POST /agents/:id/messages`; `false`: no client-side queue. @defaultValue `5` (the service's figure) */
  messages?: number | false;
  /** `GET /r2/<object_key>`; `false`: no client-side queue. @defaultValue `5` (the service's figure) */
  objects?: number | false;
  /** File uploads; `false`: no client-side queue. @defaultValue `5` (the service's figure) */
  files?: number | false;
}

/** Options of {@link createRestClient}. */
export interface RestClientOptions {
  /** The service's base URL, e.g. `https://api.example.com` (a path prefix is kept). */
  baseUrl: string | URL;
  /**
   * The bearer token, or a function giving it per request (so a refreshed
   * user JWT is picked up). Never put in a URL, a log line or an error.
   */
  credentials?: string | CredentialsProvider;
  /**
   * Called when the service answers `TOKEN_EXPIRED`: refresh the credential
   * (the provider must give the new one afterwards); the request is then
   * retried once. Concurrent expiries share one call. Without it, the error surfaces.
   */
  onTokenExpired?: () => void | Promise<void>;
  /**
   * undici dispatcher for every request (tests pass a `MockAgent`).
   * @defaultValue a shared keep-alive `Agent`
   */
  dispatcher?: Dispatcher;
  /** Source of time and timers (timeouts, rate limits). @defaultValue `systemClock` */
  clock?: Clock;
  /** Where log lines go (redacted first). @defaultValue `silentLogger` */
  logger?: Logger;
  /** Retry behaviour. */
  retry?: RetryOptions;
  /**
   * Deadline of one attempt, headers and body, in ms.
   * @defaultValue `15000`
   */
  timeoutMs?: number;
  /**
   * Client-side rate limits; `false` turns them off.
   * @defaultValue `{ messages: 5, objects: 5, files: 5 }`
   */
  rateLimits?: ClientRateLimits | false;
  /**
   * Limiters used instead of the built-in ones, per key: e.g. the limits every
   * copy of an agent shares through Redis (`createRedisRateLimiters` from
   * `agent-messaging-sdk/webhook/redis`). A key left out keeps its built-in
   * limit; ignored when `rateLimits` is `false`.
   */
  rateLimiters?: Readonly<Partial<Record<'messages' | 'objects' | 'files', RateLimiter>>>;
  /**
   * Largest response body read, in bytes (JSON and binary). Bigger answers fail with `TRANSPORT_BAD_RESPONSE`.
   * @defaultValue `110 * 1024 * 1024` (a 100 MB file plus envelope overhead)
   */
  maxResponseBytes?: number;
  /** Extra headers on every request (e.g. `user-agent`). `authorization` is ignored here. */
  headers?: Readonly<Record<string, string>>;
  /**
   * How retries wait. Defaults to timers of `clock`; tests pass a fake.
   * @defaultValue a `clock`-based sleep
   */
  sleep?: SleepFn;
}

/** Every default of the REST client. */
export const DEFAULT_REST_OPTIONS = {
  maxAttempts: 5,
  baseDelayMs: 300,
  maxDelayMs: 10_000,
  maxTotalWaitMs: 30_000,
  timeoutMs: 15_000,
  maxResponseBytes: 110 * 1024 * 1024,
  rateLimits: {
    messages: LIMITS.MESSAGES_PER_SECOND,
    objects: LIMITS.OBJECT_FETCHES_PER_SECOND,
    files: LIMITS.FILE_UPLOADS_PER_SECOND,
  },
} as const satisfies {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxTotalWaitMs: number;
  timeoutMs: number;
  maxResponseBytes: number;
  rateLimits: { messages: number; objects: number; files: number };
};

/** Options after defaults and validation. */
export interface ResolvedRestOptions {
  readonly base: URL;
  readonly credentials: CredentialsProvider | undefined;
  readonly onTokenExpired: (() => void | Promise<void>) | undefined;
  readonly dispatcher: Dispatcher | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxTotalWaitMs: number;
  readonly random: () => number;
  readonly timeoutMs: number;
  readonly rateLimits: Required<ClientRateLimits> | false;
  readonly rateLimiters: Readonly<Partial<Record<'messages' | 'objects' | 'files', RateLimiter>>>;
  readonly maxResponseBytes: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly sleep: SleepFn;
}

function bad(option: string, rule: string): ConfigurationError {
  return new ConfigurationError({ option, message: `Option "${option}" ${rule}.` });
}

function positiveInt(value: number | undefined, fallback: number, option: string): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < 1) throw bad(option, 'must be a positive integer');
  return v;
}

function nonNegative(value: number | undefined, fallback: number, option: string): number {
  const v = value ?? fallback;
  if (!(typeof v === 'number' && Number.isFinite(v) && v >= 0))
    throw bad(option, 'must be a finite number ≥ 0');
  return v;
}

/**
 * Checks a service base URL: absolute http(s), no credentials, no query or fragment.
 *
 * @throws {@link ConfigurationError} naming the option `baseUrl`.
 */
export function parseBaseUrl(value: string | URL): URL {
  if (typeof value === 'string' && value.trim() === '') throw emptyBaseUrl();
  let url: URL;
  try {
    url = new URL(String(value));
  } catch (cause) {
    throw new ConfigurationError({
      option: 'baseUrl',
      message: 'Option "baseUrl" must be an absolute http(s) URL.',
      cause,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw bad('baseUrl', 'must be an absolute http(s) URL');
  if (url.username !== '' || url.password !== '') throw bad('baseUrl', 'must not carry credentials');
  if (url.search !== '' || url.hash !== '') throw bad('baseUrl', 'must not have a query or fragment');
  return url;
}

function credentialsOf(value: RestClientOptions['credentials']): CredentialsProvider | undefined {
  if (value === undefined || typeof value === 'function') return value;
  if (typeof value !== 'string' || value.length === 0)
    throw bad('credentials', 'must be a non-empty string or a function');
  return () => value;
}

/** A `clock`-driven sleep that an AbortSignal can cut short. */
export function clockSleep(clock: Clock): SleepFn {
  const set = (fn: () => void, ms: number, options?: TimerOptions): (() => void) => {
    const h = clock.setTimeout(fn, ms, options);
    return () => clock.clearTimeout(h);
  };
  return (ms, signal, options) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(signal.reason);
        return;
      }
      const onAbort = (): void => {
        cancel();
        reject(signal?.reason);
      };
      const cancel = set(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        ms,
        options,
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    });
}

function rateLimitsOf(value: RestClientOptions['rateLimits']): Required<ClientRateLimits> | false {
  if (value === false) return false;
  const d = DEFAULT_REST_OPTIONS.rateLimits;
  const limit = (key: keyof ClientRateLimits): number | false => {
    const v = value?.[key];
    return v === false ? false : positiveInt(v, d[key], `rateLimits.${key}`);
  };
  return { messages: limit('messages'), objects: limit('objects'), files: limit('files') };
}

/**
 * Applies defaults and checks every option.
 *
 * @throws {@link ConfigurationError} naming the first bad option.
 */
export function resolveRestOptions(options: RestClientOptions): ResolvedRestOptions {
  const d = DEFAULT_REST_OPTIONS;
  const r = options.retry ?? {};
  const clock = options.clock ?? systemClock;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.headers ?? {})) {
    if (k.toLowerCase() !== 'authorization') headers[k.toLowerCase()] = v;
  }
  const random = r.random ?? Math.random;
  if (typeof random !== 'function') throw bad('retry.random', 'must be a function');
  return {
    base: parseBaseUrl(options.baseUrl),
    credentials: credentialsOf(options.credentials),
    onTokenExpired: options.onTokenExpired,
    dispatcher: options.dispatcher,
    clock,
    logger: redactingLogger(options.logger ?? silentLogger),
    maxAttempts: positiveInt(r.maxAttempts, d.maxAttempts, 'retry.maxAttempts'),
    baseDelayMs: nonNegative(r.baseDelayMs, d.baseDelayMs, 'retry.baseDelayMs'),
    maxDelayMs: nonNegative(r.maxDelayMs, d.maxDelayMs, 'retry.maxDelayMs'),
    maxTotalWaitMs: nonNegative(r.maxTotalWaitMs, d.maxTotalWaitMs, 'retry.maxTotalWaitMs'),
    random,
    timeoutMs: positiveInt(options.timeoutMs, d.timeoutMs, 'timeoutMs'),
    rateLimits: rateLimitsOf(options.rateLimits),
    rateLimiters: options.rateLimiters ?? {},
    maxResponseBytes: positiveInt(options.maxResponseBytes, d.maxResponseBytes, 'maxResponseBytes'),
    headers,
    sleep: options.sleep ?? clockSleep(clock),
  };
}
