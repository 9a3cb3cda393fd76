/**
 * What every adapter shares: turning a raw-body problem into an answer, and
 * writing an answer onto a Node-style response.
 *
 * @module
 */
import { ConfigurationError } from '../../core/errors/configuration-error.js';
import { WebhookVerificationError } from '../../core/errors/webhook-verification-error.js';
import { DEFAULT_WEBHOOK_OPTIONS } from '../constants.js';
import type { WebhookReceiver } from '../receiver.js';
import { errorResponse, type WebhookResponse } from '../responses.js';
import type { RawBodyResult } from './node-body.js';

/** The cap every adapter applies while reading: 1 MB. */
export const MAX_BODY_BYTES = DEFAULT_WEBHOOK_OPTIONS.maxBodyBytes;

/** Which adapter is speaking, to phrase its set-up advice. */
export type AdapterName = 'express' | 'node' | 'fastify' | 'fetch';

const CONSUMED_ADVICE: Record<AdapterName, string> = {
  express:
    'The request body was already consumed by a body parser (e.g. express.json()), so the signature cannot be checked. ' +
    "Mount the webhook middleware before express.json(), or give its route express.raw({ type: '*/*', limit: '1mb' }).",
  node: 'The request body was already read by other code, so the signature cannot be checked. Pass the request before anything reads its body, or set req.rawBody to the exact bytes.',
  fastify:
    'The request body was already parsed as JSON, so the signature cannot be checked. Register createFastifyPlugin(receiver) (it installs a raw-body parser in its own scope), or keep the raw bytes in request.rawBody (e.g. fastify-raw-body).',
  fetch:
    'The request body was already read (request.bodyUsed), so the signature cannot be checked. Pass the request to the webhook handler before reading it, or pass request.clone().',
};

/** A 413 answer for a body over 1 MB. */
export function tooLargeError(): WebhookVerificationError {
  return new WebhookVerificationError({
    code: 'WEBHOOK_PAYLOAD_TOO_LARGE',
    status: 413,
    message: 'The webhook body exceeds 1 MB.',
    params: { max_bytes: MAX_BODY_BYTES },
  });
}

/** The configuration error for a body a parser already consumed. */
export function consumedBodyError(adapter: AdapterName): ConfigurationError {
  return new ConfigurationError({ option: 'body', message: CONSUMED_ADVICE[adapter] });
}

/** Runs the receiver for a raw-body result, or answers the problem with it. */
export function handleRawBody(
  receiver: WebhookReceiver,
  result: RawBodyResult,
  headers: Parameters<WebhookReceiver['handle']>[0]['headers'],
  adapter: AdapterName,
): Promise<WebhookResponse> {
  switch (result.kind) {
    case 'ok':
      return receiver.handle({ body: result.body, headers });
    case 'too_large':
      return Promise.resolve(receiver.respondToError(tooLargeError()));
    case 'consumed':
      return Promise.resolve(receiver.respondToError(consumedBodyError(adapter)));
    case 'error':
      return Promise.resolve(
        errorResponse(400, 'WEBHOOK_PAYLOAD_INVALID', 'The request body could not be read.'),
      );
  }
}

/** The members of a Node `ServerResponse` (or Express response) the adapters use. */
export interface NodeResponseLike {
  statusCode: number;
  readonly headersSent?: boolean;
  setHeader(name: string, value: string): unknown;
  /** Writes part of the answer (Node's `ServerResponse.write`). */
  write?(chunk: string): unknown;
  end(body?: string): unknown;
}

/**
 * Writes an answer. A 413 also closes the connection: the body was read and
 * discarded up to 16 MB, and the rest of a larger one is never read. When
 * `discarded` is given (a 413 due from the Content-Length, before the body
 * was read), the whole answer is written at once and the response ended,
 * which closes the connection, only when the rest of the body was discarded:
 * closing earlier would cut an honest sender off mid-write (issue #11), and
 * waiting to answer would leave one that promised more than it sends without
 * an answer (issue #28).
 */
export function writeNodeResponse(
  res: NodeResponseLike,
  response: WebhookResponse,
  discarded?: Promise<void>,
): void {
  if (res.headersSent === true) return;
  res.statusCode = response.status;
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  if (response.status === 413) res.setHeader('connection', 'close');
  if (discarded !== undefined && res.write !== undefined) {
    res.setHeader('content-length', String(new TextEncoder().encode(response.body).length));
    res.write(response.body);
    void discarded.then(() => res.end());
    return;
  }
  res.end(response.body);
}

/** The `discarded` promise of a raw-body result, if its answer is due before the body was read. */
export function discardedOf(result: RawBodyResult): Promise<void> | undefined {
  return result.kind === 'too_large' ? result.discarded : undefined;
}
