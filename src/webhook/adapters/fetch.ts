/**
 * Adapter for fetch-style runtimes: `Request → Response` (Hono, Next.js
 * route handlers, Cloudflare Workers, Deno, Bun). Uses only Web APIs.
 *
 * @module
 */
import type { WebhookReceiver } from '../receiver.js';
import type { WebhookResponse } from '../responses.js';
import { discard, readLimited } from '../refs/http.js';
import type { RawBodyResult } from './node-body.js';
import { declaredTooLarge } from './node-body.js';
import { handleRawBody, MAX_BODY_BYTES } from './shared.js';

/** The members of a fetch `Request` the adapter reads. */
export interface FetchRequestLike {
  readonly headers: { get(name: string): string | null };
  readonly body: ReadableStream<Uint8Array> | null;
  readonly bodyUsed: boolean;
}

/** A fetch-style handler. */
export type FetchWebhookHandler = (request: FetchRequestLike) => Promise<Response>;

async function readFetchBody(request: FetchRequestLike): Promise<RawBodyResult> {
  if (request.bodyUsed) return { kind: 'consumed' };
  if (declaredTooLarge(request.headers, MAX_BODY_BYTES)) {
    discard(request.body);
    return { kind: 'too_large' };
  }
  try {
    const body = await readLimited(request.body, MAX_BODY_BYTES);
    return body === undefined ? { kind: 'too_large' } : { kind: 'ok', body };
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
