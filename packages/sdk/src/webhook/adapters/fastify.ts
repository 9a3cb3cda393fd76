/**
 * Adapter for Fastify (4 and 5), typed structurally (Fastify is not a
 * dependency). Fastify parses JSON bodies before route handlers run, so the
 * plugin installs its own raw-body parser, scoped to the plugin by Fastify's
 * encapsulation: the rest of your app keeps its JSON parser.
 *
 * @module
 */
import type { WebhookReceiver } from '../receiver.js';
import type { WebhookResponse } from '../responses.js';
import { readNodeStream, RAW_BODY_RESULT, type NodeRequestLike, type RawBodyResult } from './node-body.js';
import {
  discardedOf,
  handleRawBody,
  MAX_BODY_BYTES,
  writeNodeResponse,
  type NodeResponseLike,
} from './shared.js';

/** The members of a Fastify request the adapter reads. */
export interface FastifyRequestLike {
  readonly headers: NodeRequestLike['headers'];
  readonly body?: unknown;
  readonly rawBody?: unknown;
}

/** The members of a Fastify reply the adapter uses. */
export interface FastifyReplyLike {
  code(statusCode: number): FastifyReplyLike;
  header(name: string, value: string): FastifyReplyLike;
  send(payload: string): unknown;
  /** Takes the answer out of Fastify's hands (Fastify 4 and 5). */
  hijack?(): unknown;
  /** The Node response underneath (Fastify 4 and 5). */
  readonly raw?: NodeResponseLike;
}

/** The members of a Fastify instance the plugin uses. */
export interface FastifyInstanceLike {
  removeAllContentTypeParsers(): unknown;
  addContentTypeParser(
    contentType: string,
    parser: (
      request: unknown,
      payload: NodeRequestLike,
      done: (err: Error | null, body?: unknown) => void,
    ) => void,
  ): unknown;
  post(
    path: string,
    handler: (request: FastifyRequestLike, reply: FastifyReplyLike) => Promise<unknown>,
  ): unknown;
}

/** Options of {@link createFastifyPlugin}. */
export interface FastifyWebhookPluginOptions {
  /** Route path inside the plugin's prefix. @defaultValue `'/webhook'` */
  path?: string;
}

/** A Fastify route handler for the webhook. */
export type FastifyWebhookHandler = (
  request: FastifyRequestLike,
  reply: FastifyReplyLike,
) => Promise<unknown>;

type TaggedResult = RawBodyResult & { readonly [RAW_BODY_RESULT]: true };

function isTagged(v: unknown): v is TaggedResult {
  return (
    typeof v === 'object' && v !== null && (v as { [RAW_BODY_RESULT]?: unknown })[RAW_BODY_RESULT] === true
  );
}

function bodyOf(request: FastifyRequestLike): RawBodyResult {
  if (isTagged(request.body)) return request.body;
  const raw = request.rawBody;
  if (raw instanceof Uint8Array || typeof raw === 'string') return { kind: 'ok', body: raw };
  const body = request.body;
  if (body instanceof Uint8Array || typeof body === 'string') return { kind: 'ok', body };
  return { kind: 'consumed' };
}

function send(reply: FastifyReplyLike, response: WebhookResponse, discarded?: Promise<void>): unknown {
  if (discarded !== undefined && reply.hijack !== undefined && reply.raw !== undefined) {
    // The 413 is written now; the connection closes once the rest of the body was discarded.
    reply.hijack();
    writeNodeResponse(reply.raw, response, discarded);
    return undefined;
  }
  reply.code(response.status);
  for (const [name, value] of Object.entries(response.headers)) reply.header(name, value);
  if (response.status === 413) reply.header('connection', 'close');
  return reply.send(response.body);
}

/**
 * Creates a route handler for a route whose raw body is available: through
 * {@link createFastifyPlugin}'s parser, `request.rawBody` (e.g. fastify-raw-body)
 * or a Buffer/string body. A body Fastify already parsed as JSON is answered
 * with a configuration error that says what to change.
 */
export function createFastifyHandler(receiver: WebhookReceiver): FastifyWebhookHandler {
  return async (request, reply) => {
    let response: WebhookResponse;
    let discarded: Promise<void> | undefined;
    try {
      const body = bodyOf(request);
      discarded = discardedOf(body);
      response = await handleRawBody(receiver, body, request.headers, 'fastify');
    } catch (err) {
      response = receiver.respondToError(err);
    }
    return send(reply, response, discarded);
  };
}

/**
 * Creates a Fastify plugin that registers `POST <path>` with a raw-body
 * parser (one pass, 1 MB cap → 413, the rest of a larger body read and discarded
 * up to 16 MB first) in the plugin's own scope.
 *
 * @example
 * ```ts
 * const app = Fastify();
 * await app.register(createFastifyPlugin(receiver, { path: '/webhook' }));
 * ```
 */
export function createFastifyPlugin(
  receiver: WebhookReceiver,
  options: FastifyWebhookPluginOptions = {},
): (instance: FastifyInstanceLike) => Promise<void> {
  const handler = createFastifyHandler(receiver);
  return async (instance) => {
    instance.removeAllContentTypeParsers();
    instance.addContentTypeParser('*', (_request, payload, done) => {
      void readNodeStream(payload, MAX_BODY_BYTES).then((result) =>
        done(null, { ...result, [RAW_BODY_RESULT]: true }),
      );
    });
    instance.post(options.path ?? '/webhook', handler);
  };
}
