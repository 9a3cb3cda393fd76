/**
 * Turning a caller's request into a {@link PreparedRequest}: target URL,
 * headers, JSON body, idempotency and the client-side limiter to pass.
 *
 * @module
 */
import type { Dispatcher } from 'undici';
import { createRateLimiter, type RateLimiter } from '../../core/rate-limiter.js';
import type { PreparedRequest } from './execute.js';
import type { ResolvedRestOptions } from './options.js';
import { targetOf, type QueryParams } from './paths.js';
import { isIdempotentMethod } from './retry.js';

/** HTTP methods the client sends. */
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Which client-side limiter a request passes: sending messages, fetching objects, or uploading files. */
export type RateLimitKey = 'messages' | 'objects' | 'files';

/** Per-request options shared by every call. */
export interface RequestCallOptions {
  /** Query parameters (`undefined` values left out). */
  query?: QueryParams;
  /** Mark a non-idempotent method as safe to repeat after a network error. @defaultValue true for GET, HEAD, PUT, DELETE */
  idempotent?: boolean;
  /** Queue behind this client-side limiter. @defaultValue none */
  limiter?: RateLimitKey;
  /** Deadline of each attempt, ms. @defaultValue the client's `timeoutMs` */
  timeoutMs?: number;
  /** Aborts the request (and any wait between attempts); its reason is rethrown. */
  signal?: AbortSignal;
  /** Send the bearer token. `false` for public endpoints (`/auth/login`…). @defaultValue `true` */
  auth?: boolean;
  /** Extra headers (e.g. `cookie` for `/auth/refresh`). */
  headers?: Readonly<Record<string, string>>;
  /** Attempts of this request, the first included (1: the caller handles 429 itself). @defaultValue the client's `retry.maxAttempts` */
  maxAttempts?: number;
}

/** One limiter per key, per client (none for a key whose limit is off). */
export type Limiters = Readonly<Partial<Record<RateLimitKey, RateLimiter>>> | undefined;

/** Creates the client's limiters (none when rate limits are off, none for a key set to `false`). */
export function limitersOf(o: ResolvedRestOptions): Partial<Record<RateLimitKey, RateLimiter>> | undefined {
  if (o.rateLimits === false) return undefined;
  const limits = o.rateLimits;
  const limiters: Partial<Record<RateLimitKey, RateLimiter>> = {};
  for (const key of ['messages', 'objects', 'files'] as const) {
    const given = o.rateLimiters[key];
    const limit = limits[key];
    if (given !== undefined) limiters[key] = given;
    else if (limit !== false) limiters[key] = createRateLimiter({ limit, intervalMs: 1000, clock: o.clock });
  }
  return limiters;
}

/** What {@link prepareRequest} needs. */
export interface RequestSpec {
  readonly method: HttpMethod;
  readonly path: string;
  readonly call: RequestCallOptions;
  readonly body: unknown;
  readonly accept: string;
}

/**
 * Builds the request. The caller's `authorization` header is dropped: the
 * bearer token only ever comes from the credentials provider.
 *
 * @throws {@link ConfigurationError} for a bad path.
 */
export function prepareRequest(
  o: ResolvedRestOptions,
  limiters: Limiters,
  spec: RequestSpec,
): PreparedRequest {
  const { method, call } = spec;
  const target = targetOf(o.base, spec.path, call.query);
  const json = spec.body === undefined ? undefined : JSON.stringify(spec.body);
  const headers: Record<string, string> = { ...o.headers, accept: spec.accept };
  if (json !== undefined) headers['content-type'] = 'application/json';
  for (const [k, v] of Object.entries(call.headers ?? {})) {
    if (k.toLowerCase() !== 'authorization') headers[k.toLowerCase()] = v;
  }
  return {
    origin: target.origin,
    path: target.path,
    method: method as Dispatcher.HttpMethod,
    headers,
    body: json,
    idempotent: call.idempotent ?? isIdempotentMethod(method),
    timeoutMs: call.timeoutMs ?? o.timeoutMs,
    maxBytes: o.maxResponseBytes,
    signal: call.signal,
    auth: call.auth ?? true,
    limiter: call.limiter === undefined ? undefined : limiters?.[call.limiter],
    maxAttempts: call.maxAttempts,
  };
}
