/**
 * `agent-messaging-sdk/webhook/express`: the webhook receiver as Express (4
 * and 5) middleware. Express is typed structurally, never imported.
 *
 * @example
 * ```ts
 * import { createWebhookReceiver } from 'agent-messaging-sdk/webhook';
 * import { createExpressMiddleware } from 'agent-messaging-sdk/webhook/express';
 *
 * app.post('/webhook', createExpressMiddleware(createWebhookReceiver({ secret, handler })));
 * app.use(express.json()); // after the webhook route
 * ```
 *
 * @module webhook/express
 */
export { createExpressMiddleware, type ExpressWebhookMiddleware } from './adapters/express.js';
export type { NodeRequestLike } from './adapters/node-body.js';
export type { NodeResponseLike } from './adapters/shared.js';
