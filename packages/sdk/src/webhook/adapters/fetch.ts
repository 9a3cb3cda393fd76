/**
 * Adapter for fetch-style runtimes: `Request → Response` (Hono, Next.js
 * route handlers, Cloudflare Workers, Deno, Bun). Uses only Web APIs.
 *
 * @module
 */
import type { WebhookReceiver } from '../receiver.js';
import type { WebhookResponse } from '../responses.js';
import { concatBytes } from '../../core/encoding.js';
import { discard } from '../refs/http.js';
import { declaredTooLarge, DISCARD_MAX_BYTES, type RawBodyResult } from './node-body.js';
import { handleRawBody, MAX_BODY_BYTES } from './shared.js';

/** The members of a fetch `Request` the adapter reads. */
export interface FetchRequestLike {
  readonly headers: { get(name: string): string | null };
  readonly body: ReadableStream<Uint8Array> | null;
  readonly bodyUsed: boolean;
}

/** A fetch-style handler. */
export type FetchWebhookHandler = (request: FetchRequestLike) => Promise<Response>;

/**
 * Reads the body, keeping at most `maxBytes`. A larger body is read on and
 * discarded up to `DISCARD_MAX_BYTES` before it is answered 413, so the
 * sender finishes writing and can read the answer; beyond that it is cancelled.
 */
async function readBody(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<RawBodyResult> {
  if (body === null) return { kind: 'ok', body: new Uint8Array() };
  const reader = body.getReader();
  let chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > DISCARD_MAX_BYTES) {
      // Not awaited: some stream sources never settle a cancel.
      reader.cancel().catch(() => undefined);
      return { kind: 'too_large' };
    }
    if (total > maxBytes) chunks = [];
    else chunks.push(value);
  }
  if (total > maxBytes) return { kind: 'too_large' };
  return { kind: 'ok', body: chunks.length === 1 ? chunks[0]! : concatBytes(...chunks) };
}

/**
 * Reads and drops the rest of a body answered 413 from its Content-Length,
 * in the background, up to `DISCARD_MAX_BYTES` (then cancelled): the runtime
 * sends the answer at once and owns the connection.
 */
function drainInBackground(body: ReadableStream<Uint8Array> | null): void {
  if (body === null) return;
  const reader = body.getReader();
  void (async () => {
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      total += value.length;
      if (total > DISCARD_MAX_BYTES) {
        reader.cancel().catch(() => undefined);
        return;
      }
    }
  })().catch(() => undefined);
}

async function readFetchBody(request: FetchRequestLike): Promise<RawBodyResult> {
  if (request.bodyUsed) return { kind: 'consumed' };
  if (declaredTooLarge(request.headers, DISCARD_MAX_BYTES)) {
    discard(request.body);
    return { kind: 'too_large' };
  }
  if (declaredTooLarge(request.headers, MAX_BODY_BYTES)) {
    // Answered now: a sender whose Content-Length promises more than it sends waits for no one (issue #28).
    drainInBackground(request.body);
    return { kind: 'too_large' };
  }
  try {
    return await readBody(request.body, MAX_BODY_BYTES);
  } catch (error) {
    return { kind: 'error', error };
  }
}

function toResponse(response: WebhookResponse): Response {
  return new Response(response.body, { status: response.status, headers: response.headers });
}

/**
 * Creates a `(request) => Promise<Response>` handler.
 *
 * @example
 * ```ts
 * const handle = createFetchHandler(receiver);
 * app.post('/webhook', (c) => handle(c.req.raw)); // Hono
 * export const POST = handle;                       // Next.js route handler
 * ```
 */
export function createFetchHandler(receiver: WebhookReceiver): FetchWebhookHandler {
  return async (request) => {
    let response: WebhookResponse;
    try {
      response = await handleRawBody(receiver, await readFetchBody(request), request.headers, 'fetch');
    } catch (err) {
      response = receiver.respondToError(err);
    }
    return toResponse(response);
  };
}
