/**
 * `agent-messaging-sdk/webhook/node`: the webhook receiver as a Node `http`
 * request handler (also connect-style middleware).
 *
 * @example
 * ```ts
 * import { createWebhookReceiver } from 'agent-messaging-sdk/webhook';
 * import { createNodeHandler } from 'agent-messaging-sdk/webhook/node';
 *
 * http.createServer(createNodeHandler(createWebhookReceiver({ secret, handler }))).listen(8080);
 * ```
 *
 * @module webhook/node
 */
export { createNodeHandler, type NodeWebhookHandler } from './adapters/node.js';
export type { NodeRequestLike } from './adapters/node-body.js';
export type { NodeResponseLike } from './adapters/shared.js';
