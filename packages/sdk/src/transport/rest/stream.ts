/**
 * Streamed exchanges of the REST client: a request whose body is a byte
 * stream (file uploads) and a GET whose answer is read as a stream (file
 * downloads), so neither side of a 100 MB file is ever held whole. One
 * attempt each: a consumed body cannot be replayed, and a download is
 * restarted by its caller. The client-side limiter and the bearer token
 * work as for every other request; error answers become the same typed errors.
 *
 * @module
 */
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { isAmsError } from '../../core/errors/guards.js';
import { TimeoutError } from '../../core/errors/timeout-error.js';
import { TransportError } from '../../core/errors/transport-error.js';
import type { Clock, TimerHandle } from '../../core/clock.js';
import type { RateLimiter } from '../../core/rate-limiter.js';
import { describeRequest, ERROR_BODY_MAX_BYTES, type ResponseHeaders } from './attempt.js';
import { discardBody } from './discard-body.js';
import { errorOf } from './response.js';

/** What a streamed exchange needs from the client. */
export interface StreamContext {
  readonly dispatcher: Dispatcher;
  readonly origin: string;
  /** The path prefix of the base URL (no trailing slash). */
  readonly prefix: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly authorization: () => Promise<string>;
  readonly clock: Clock;
  /** Deadline for the answer's headers, ms, counted from the end of the request body. */
  readonly headersTimeoutMs: number;
}

/** A streamed answer. */
export interface StreamResponse {
  readonly status: number;
  readonly headers: ResponseHeaders;
  /** The body, read as it arrives. Cancel with `cancel()` if not read to the end. */
  readonly body: AsyncIterable<Uint8Array>;
  /** Stops reading the body and releases the connection. */
  cancel(): void;
}

/** Options of a streamed exchange. */
export interface StreamRequestOptions {
  readonly method: 'GET' | 'POST' | 'PUT';
  /** Path relative to the base URL, segments already encoded. */
  readonly path: string;
  /** The request body as a stream of bytes. */
  readonly body?: AsyncIterable<Uint8Array>;
  /** Content type of the body. */
  readonly contentType?: string;
  /** Content-Length of the body, when known in advance. */
  readonly contentLength?: number;
  readonly accept?: string;
  readonly limiter?: RateLimiter | undefined;
  readonly signal?: AbortSignal | undefined;
}

async function readError(body: Dispatcher.ResponseData['body']): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > ERROR_BODY_MAX_BYTES) break;
    chunks.push(chunk);
  }
  discardBody(body);
  return Buffer.concat(chunks);
}

/**
 * Sends one streamed exchange. Success answers (2xx) are returned with their
 * body unread; error answers are thrown as typed errors.
 *
 * @throws {@link ServiceError} / {@link RateLimitError} for an error answer;
 * {@link TransportError} `TRANSPORT_NETWORK`; {@link TimeoutError} when no
 * answer's headers arrive in time; the caller's abort reason.
 */
export async function streamRequest(ctx: StreamContext, o: StreamRequestOptions): Promise<StreamResponse> {
  const path = `${ctx.prefix}${o.path}`;
  const what = describeRequest(o.method, path);
  await o.limiter?.acquire(o.signal);
  const headers: Record<string, string> = {
    ...ctx.headers,
    accept: o.accept ?? 'application/json',
    authorization: await ctx.authorization(),
  };
  if (o.contentType !== undefined) headers['content-type'] = o.contentType;
  if (o.contentLength !== undefined) headers['content-length'] = String(o.contentLength);
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(o.signal?.reason);
  if (o.signal?.aborted === true) onAbort();
  else o.signal?.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  let timer: TimerHandle | undefined;
  const startDeadline = (): void => {
    timer ??= ctx.clock.setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, ctx.headersTimeoutMs);
  };
  // The answer's deadline runs from the end of the body: a 100 MB upload may take longer than it.
  async function* thenStartDeadline(body: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    yield* body;
    startDeadline();
  }
  if (o.body === undefined) startDeadline();
  try {
    const answer = ctx.dispatcher.request({
      origin: ctx.origin,
      path,
      method: o.method,
      headers,
      body: o.body === undefined ? null : Readable.from(thenStartDeadline(o.body), { objectMode: false }),
      signal: controller.signal,
    });
    ctx.clock.track?.(answer);
    const res = await answer;
    if (timer !== undefined) ctx.clock.clearTimeout(timer);
    if (res.statusCode < 200 || res.statusCode >= 300) {
      const bytes = await readError(res.body);
      throw errorOf({ status: res.statusCode, headers: res.headers, bytes }, ctx.clock.now(), what);
    }
    return {
      status: res.statusCode,
      headers: res.headers,
      body: res.body as AsyncIterable<Uint8Array>,
      cancel: () => discardBody(res.body),
    };
  } catch (cause) {
    if (isAmsError(cause)) throw cause;
    if (o.signal?.aborted === true) throw o.signal.reason;
    if (timedOut)
      throw new TimeoutError({ message: `${what} timed out.`, timeoutMs: ctx.headersTimeoutMs, cause });
    throw new TransportError({ code: 'TRANSPORT_NETWORK', message: `${what} failed: network error.`, cause });
  } finally {
    if (timer !== undefined) ctx.clock.clearTimeout(timer);
    o.signal?.removeEventListener('abort', onAbort);
  }
}
