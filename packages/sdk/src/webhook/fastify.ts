/**
 * `agent-messaging-sdk/webhook/fastify`: the webhook receiver as a Fastify
 * plugin with its own raw-body parser, or as a route handler. Fastify is
 * typed structurally, never imported.
 *
 * @example
 * ```ts
 * import { createWebhookReceiver } from 'agent-messaging-sdk/webhook';
 * import { createFastifyPlugin } from 'agent-messaging-sdk/webhook/fastify';
 *
 * await app.register(createFastifyPlugin(createWebhookReceiver({ secret, handler }), { path: '/webhook' }));
 * ```
 *
 * @module webhook/fastify
 */
export {
  createFastifyPlugin,
  createFastifyHandler,
  type FastifyWebhookPluginOptions,
  type FastifyWebhookHandler,
  type FastifyInstanceLike,
  type FastifyRequestLike,
  type FastifyReplyLike,
} from './adapters/fastify.js';
