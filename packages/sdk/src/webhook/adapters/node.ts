/**
 * Adapter for Node's `http` / `https` / `http2` compatibility servers (and
 * anything connect-style). Typed structurally: no framework dependency.
 *
 * @module
 */
import type { WebhookReceiver } from '../receiver.js';
import { readNodeBody, type NodeRequestLike } from './node-body.js';
import {
  discardedOf,
  handleRawBody,
  MAX_BODY_BYTES,
  writeNodeResponse,
  type AdapterName,
  type NodeResponseLike,
} from './shared.js';

/** A Node request handler; also usable as connect-style middleware (it never calls `next`). */
export type NodeWebhookHandler = (
  req: NodeRequestLike,
  res: NodeResponseLike,
  next?: (err?: unknown) => void,
) => Promise<void>;

/** Shared by the Node and Express adapters. */
export function createNodeStyleHandler(receiver: WebhookReceiver, adapter: AdapterName): NodeWebhookHandler {
  return async (req, res) => {
    let response;
    let discarded: Promise<void> | undefined;
    try {
      const result = await readNodeBody(req, MAX_BODY_BYTES);
      discarded = discardedOf(result);
      response = await handleRawBody(receiver, result, req.headers, adapter);
    } catch (err) {
      response = receiver.respondToError(err);
    }
    writeNodeResponse(res, response, discarded);
  };
}

/**
 * Creates a `(req, res)` handler for `http.createServer`. It reads the raw
 * body itself (1 MB cap → 413, written once the sender has finished sending,
 * up to 16 MB) and answers every request it is given, so
 * route to it only the webhook path.
 *
 * @example
 * ```ts
 * const handle = createNodeHandler(receiver);
 * http.createServer((req, res) => (req.url === '/webhook' ? handle(req, res) : notFound(res))).listen(8080);
 * ```
 */
export function createNodeHandler(receiver: WebhookReceiver): NodeWebhookHandler {
  return createNodeStyleHandler(receiver, 'node');
}
