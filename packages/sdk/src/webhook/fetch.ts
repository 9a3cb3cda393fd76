/**
 * `agent-messaging-sdk/webhook/fetch`: the webhook receiver as a fetch-style
 * `Request → Response` handler (Hono, Next.js route handlers, Cloudflare
 * Workers, Deno, Bun). Web APIs only.
 *
 * @example
 * ```ts
 * import { createWebhookReceiver } from 'agent-messaging-sdk/webhook';
 * import { createFetchHandler } from 'agent-messaging-sdk/webhook/fetch';
 *
 * const handle = createFetchHandler(createWebhookReceiver({ secret, handler }));
 * app.post('/webhook', (c) => handle(c.req.raw)); // Hono
 * export const POST = handle; // Next.js route handler
 * ```
 *
 * @module webhook/fetch
 */
export { createFetchHandler, type FetchWebhookHandler, type FetchRequestLike } from './adapters/fetch.js';
