/**
 * One HTTP exchange through an undici `Dispatcher`: send, read the body
 * (capped), and turn low-level failures into typed errors. No retries here.
 *
 * - A deadline on the injected clock aborts the exchange → {@link TimeoutError}.
 * - A caller's AbortSignal aborts it → the signal's reason is rethrown as-is.
 * - Anything else thrown by undici (reset, refused, DNS) → {@link TransportError}
 *   `TRANSPORT_NETWORK`, the original kept as `cause`. Messages name the method
 *   and path (never the query or a header) and the low-level error code only.
 *
 * @module
 */
import type { Dispatcher } from 'undici';
import type { Clock } from '../../core/clock.js';
import { concatBytes } from '../../core/encoding.js';
import { isAmsError } from '../../core/errors/guards.js';
import { TimeoutError } from '../../core/errors/timeout-error.js';
import { TransportError } from '../../core/errors/transport-error.js';
import { discardBody } from './discard-body.js';

/** Error bodies are only read this far: enough for the service's error object. */
export const ERROR_BODY_MAX_BYTES = 64 * 1024;

/** Response headers as undici gives them. */
export type ResponseHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** One request, ready to send. */
export interface AttemptRequest {
  readonly origin: string;
  /** Path plus query, already encoded. */
  readonly path: string;
  readonly method: Dispatcher.HttpMethod;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
  readonly idempotent: boolean;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly signal: AbortSignal | undefined;
}

/** A raw answer: status, headers and the (capped) body bytes. */
export interface RawResponse {
  readonly status: number;
  readonly headers: ResponseHeaders;
  readonly bytes: Uint8Array;
}

/** `GET /agents/a1/messages` without the query: safe to put in messages and logs. */
export function describeRequest(method: string, path: string): string {
  const q = path.indexOf('?');
  return `${method} ${q === -1 ? path : path.slice(0, q)}`;
}

function lowLevelCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code)) return code;
  const name = (err as { name?: unknown } | null)?.name;
  return typeof name === 'string' && /^[A-Za-z]{1,40}$/.test(name) ? name : 'unknown';
}

class BodyTooLarge extends Error {}

async function readCapped(
  body: Dispatcher.ResponseData['body'],
  max: number,
  truncate: boolean,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body as AsyncIterable<Uint8Array>) {
    const room = max - total;
    if (chunk.length > room) {
      if (room > 0) chunks.push(chunk.subarray(0, room));
      discardBody(body);
      if (!truncate) throw new BodyTooLarge();
      break;
    }
    chunks.push(chunk);
    total += chunk.length;
  }
  return concatBytes(...chunks);
}

/**
 * Sends one request and reads its answer. Error answers (status ≥ 300) are
 * returned, not thrown; the caller turns them into typed errors.
 *
 * @throws {@link TimeoutError} when `timeoutMs` runs out; {@link TransportError}
 * `TRANSPORT_NETWORK` when the exchange fails, `TRANSPORT_BAD_RESPONSE` when a
 * success body exceeds `maxBytes`; the caller's abort reason when it aborts.
 */
export async function sendAttempt(
  dispatcher: Dispatcher,
  clock: Clock,
  req: AttemptRequest,
): Promise<RawResponse> {
  const what = describeRequest(req.method, req.path);
  const controller = new AbortController();
  let timedOut = false;
  const timer = clock.setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, req.timeoutMs);
  const onAbort = (): void => controller.abort(req.signal?.reason);
  if (req.signal?.aborted === true) onAbort();
  else req.signal?.addEventListener('abort', onAbort, { once: true });
  let status = 0;
  try {
    const res = await dispatcher.request({
      origin: req.origin,
      path: req.path,
      method: req.method,
      headers: req.headers,
      body: req.body ?? null,
      idempotent: req.idempotent,
      signal: controller.signal,
    });
    status = res.statusCode;
    const ok = status >= 200 && status < 300;
    const bytes = await readCapped(res.body, ok ? req.maxBytes : ERROR_BODY_MAX_BYTES, !ok);
    return { status, headers: res.headers, bytes };
  } catch (cause) {
    if (isAmsError(cause)) throw cause;
    if (cause instanceof BodyTooLarge) {
      throw new TransportError({
        code: 'TRANSPORT_BAD_RESPONSE',
        status,
        message: `${what}: the response body exceeds ${req.maxBytes} bytes.`,
      });
    }
    if (timedOut) throw new TimeoutError({ message: `${what} timed out.`, timeoutMs: req.timeoutMs, cause });
    if (req.signal?.aborted === true) throw req.signal.reason;
    throw new TransportError({
      code: 'TRANSPORT_NETWORK',
      message:
        `${describeRequest(req.method, `${req.origin}${req.path}`)} failed: network error ` +
        `(${lowLevelCode(cause)}). Is the service running at ${req.origin}? (\`ams serve --dev\` starts one locally.)`,
      cause,
    });
  } finally {
    clock.clearTimeout(timer);
    req.signal?.removeEventListener('abort', onAbort);
  }
}
