/**
 * Adapter for Express 4 and 5, typed structurally (Express is not a
 * dependency). Mount it on the webhook route before `express.json()`, or
 * after `express.raw()`; a body that `express.json()` already consumed is
 * answered with a configuration error that says so (never a misleading 401).
 *
 * @module
 */
import type { WebhookReceiver } from '../receiver.js';
import type { NodeRequestLike } from './node-body.js';
import { createNodeStyleHandler } from './node.js';
import type { NodeResponseLike } from './shared.js';

/** Express middleware signature (`RequestHandler`). It answers every request and never calls `next`. */
export type ExpressWebhookMiddleware = (
  req: NodeRequestLike,
  res: NodeResponseLike,
  next: (err?: unknown) => void,
) => void;

/**
 * Creates Express middleware for the webhook route.
 *
 * @example
 * ```ts
 * const app = express();
 * app.post('/webhook', createExpressMiddleware(receiver)); // before app.use(express.json())
 * app.use(express.json());
 * ```
 */
export function createExpressMiddleware(receiver: WebhookReceiver): ExpressWebhookMiddleware {
  const handle = createNodeStyleHandler(receiver, 'express');
  return (req, res, next) => {
    handle(req, res).catch(next);
  };
}
