/**
 * The attempt loop of one request: client-side rate limit, a fresh bearer
 * token per attempt, the TOKEN_EXPIRED refresh (once), and bounded, jittered
 * retries. Emits `rateLimited` and `retry`.
 *
 * @module
 */
import type { Dispatcher } from 'undici';
import type { EventEmitter } from 'eventemitter3';
import { ConfigurationError } from '../../core/errors/configuration-error.js';
import { isAmsError, isServiceError } from '../../core/errors/guards.js';
import type { RateLimiter } from '../../core/rate-limiter.js';
import { describeRequest, sendAttempt, type AttemptRequest, type RawResponse } from './attempt.js';
import type { RestClientEvents } from './events.js';
import type { ResolvedRestOptions } from './options.js';
import { errorOf } from './response.js';
import { retryDelayFor, retryReasonOf } from './retry.js';

/** Everything about one request except the credential, which is fetched per attempt. */
export interface PreparedRequest extends Omit<AttemptRequest, 'headers'> {
  readonly headers: Readonly<Record<string, string>>;
  /** Send `Authorization: Bearer <token>`. */
  readonly auth: boolean;
  readonly limiter: RateLimiter | undefined;
  /** Attempts of this request; undefined: the client's. */
  readonly maxAttempts?: number | undefined;
}

/** The parts of the client the loop needs. */
export interface ExecuteContext {
  readonly options: ResolvedRestOptions;
  readonly dispatcher: Dispatcher;
  readonly events: EventEmitter<RestClientEvents>;
  /** Runs `onTokenExpired`, shared by concurrent callers. */
  readonly refresh: () => Promise<void>;
}

// A token goes into a header: it must be visible ASCII, or it could split the header.
const TOKEN_SHAPE = /^[\x21-\x7e]{1,8192}$/;

/** `Bearer <token>` from the credentials provider, checked. */
export function bearerOf(ctx: ExecuteContext): Promise<string> {
  return bearer(ctx);
}

async function bearer(ctx: ExecuteContext): Promise<string> {
  const provider = ctx.options.credentials;
  if (provider === undefined) {
    throw new ConfigurationError({
      option: 'credentials',
      message: 'This request needs option "credentials".',
    });
  }
  const token = await provider();
  if (typeof token !== 'string' || !TOKEN_SHAPE.test(token)) {
    throw new ConfigurationError({
      option: 'credentials',
      message: 'The credentials provider must give a non-empty token of visible ASCII characters.',
    });
  }
  return `Bearer ${token}`;
}

type Outcome =
  { readonly ok: true; readonly raw: RawResponse } | { readonly ok: false; readonly error: unknown };

async function once(ctx: ExecuteContext, req: PreparedRequest): Promise<Outcome> {
  try {
    await req.limiter?.acquire(req.signal);
    const headers = req.auth ? { ...req.headers, authorization: await bearer(ctx) } : req.headers;
    const answer = sendAttempt(ctx.dispatcher, ctx.options.clock, { ...req, headers });
    ctx.options.clock.track?.(answer);
    const raw = await answer;
    if (raw.status >= 200 && raw.status < 300) return { ok: true, raw };
    const where = describeRequest(req.method, `${req.origin}${req.path}`);
    return { ok: false, error: errorOf(raw, ctx.options.clock.now(), where) };
  } catch (error) {
    return { ok: false, error };
  }
}

function emit<K extends keyof RestClientEvents>(
  ctx: ExecuteContext,
  event: K,
  ...args: RestClientEvents[K]
): void {
  try {
    (ctx.events.emit as (e: K, ...a: RestClientEvents[K]) => boolean)(event, ...args);
  } catch (err) {
    // A throwing listener must not fail the request it is observing.
    ctx.options.logger.warn('a REST client event listener threw', { event, error: (err as Error)?.name });
  }
}

/**
 * Runs `req` until it succeeds, fails for good, or the retry budget (attempts
 * or total wait) is spent; then the last error surfaces.
 */
export async function execute(ctx: ExecuteContext, req: PreparedRequest): Promise<RawResponse> {
  const o = ctx.options;
  const what = describeRequest(req.method, req.path);
  let attempt = 0;
  let waitedMs = 0;
  let refreshed = false;
  for (;;) {
    const outcome = await once(ctx, req);
    if (outcome.ok) return outcome.raw;
    const result = outcome.error;
    // Caller aborts and errors of the caller's own credentials provider propagate unchanged.
    if (!isAmsError(result)) throw result;
    if (isServiceError(result, 'TOKEN_EXPIRED') && req.auth && o.onTokenExpired !== undefined && !refreshed) {
      refreshed = true;
      o.logger.debug('access token expired; refreshing once', { request: what });
      await ctx.refresh();
      continue;
    }
    attempt += 1;
    if (result.status === 429) {
      emit(ctx, 'rateLimited', {
        request: what,
        code: result.code,
        retryAfterMs: result.retryAfterMs,
        attempt,
      });
    }
    const reason = retryReasonOf(result, req.idempotent);
    if (reason === undefined || attempt >= (req.maxAttempts ?? o.maxAttempts)) throw result;
    const delayMs = retryDelayFor(result, attempt, o);
    if (waitedMs + delayMs > o.maxTotalWaitMs) {
      o.logger.warn('retry budget spent', { request: what, code: result.code, attempt });
      throw result;
    }
    emit(ctx, 'retry', { request: what, reason, code: result.code, attempt, delayMs });
    o.logger.debug('retrying request', { request: what, reason, code: result.code, attempt, delayMs });
    // A 429's wait is on the service's rate window (see TimerOptions.window).
    await o.sleep(delayMs, req.signal, result.status === 429 ? { window: true } : undefined);
    waitedMs += delayMs;
  }
}
