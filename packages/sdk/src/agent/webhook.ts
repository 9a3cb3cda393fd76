/**
 * Webhook mode: the agent's receiver (the shared pipeline behind the
 * webhook receiver) and one method per framework adapter.
 *
 * @module
 */
import { createExpressMiddleware, type ExpressWebhookMiddleware } from '../webhook/adapters/express.js';
import {
  createFastifyPlugin,
  type FastifyInstanceLike,
  type FastifyWebhookPluginOptions,
} from '../webhook/adapters/fastify.js';
import { createFetchHandler, type FetchWebhookHandler } from '../webhook/adapters/fetch.js';
import { createNodeHandler, type NodeWebhookHandler } from '../webhook/adapters/node.js';
import type { WebhookReceiver } from '../webhook/receiver.js';
import type { AgentWebhookOptions, ResolvedAgentOptions } from './options.js';
import type { EventPipeline } from './pipeline/pipeline.js';
import { createPipelineReceiver } from './pipeline/webhook-bridge.js';

/** The agent's webhook receiver and its adapters. */
export interface AgentWebhook {
  /** The framework-neutral receiver (`handle({ body, headers })`). */
  readonly receiver: WebhookReceiver;
  /** `http.createServer(hook.nodeHandler())` (answers every request: route only the webhook path to it). */
  nodeHandler(): NodeWebhookHandler;
  /** `app.post('/webhook', hook.expressMiddleware())`, before any JSON body parser. */
  expressMiddleware(): ExpressWebhookMiddleware;
  /** `await app.register(hook.fastifyPlugin({ path: '/webhook' }))`. */
  fastifyPlugin(options?: FastifyWebhookPluginOptions): (instance: FastifyInstanceLike) => Promise<void>;
  /** A `(Request) => Promise<Response>` handler (Hono, Next.js, Workers, Deno, Bun). */
  fetchHandler(): FetchWebhookHandler;
  /** Resolves when no request is being handled. */
  idle(): Promise<void>;
}

/** What {@link createAgentWebhook} needs. */
export interface AgentWebhookParts {
  readonly options: ResolvedAgentOptions;
  readonly webhook: AgentWebhookOptions;
  readonly pipeline: EventPipeline;
  readonly closing: () => boolean;
}

/**
 * Builds the agent's webhook receiver and adapters.
 *
 * @throws {@link ConfigurationError} for a missing or short secret or a bad tolerance.
 */
export function createAgentWebhook(parts: AgentWebhookParts): AgentWebhook {
  const { options, webhook } = parts;
  if (webhook.respondEarly !== true && options.turns.strategy !== 'serial') {
    // The service sends one webhook at a time per agent: without an early answer, the next
    // delivery (a newer message, a stop, an artifact answer) waits for the running handler.
    options.logger.warn(
      `turns.strategy "${options.turns.strategy}" needs webhook respondEarly: true: without it the service ` +
        'delivers the next message (or a stop, or an artifact answer) only after the running handler returns',
      { strategy: options.turns.strategy },
    );
  }
  const bridge = createPipelineReceiver({
    pipeline: parts.pipeline,
    secret: webhook.secret,
    dedup: options.dedupStore,
    clock: options.clock,
    logger: options.logger,
    claimLeaseMs: options.claimLeaseMs,
    respondEarly: webhook.respondEarly,
    inFlightRetryAfterSeconds: webhook.inFlightRetryAfterSeconds,
    toleranceMs: webhook.toleranceMs,
    closing: parts.closing,
  });
  const { receiver } = bridge;
  return {
    receiver,
    nodeHandler: () => createNodeHandler(receiver),
    expressMiddleware: () => createExpressMiddleware(receiver),
    fastifyPlugin: (o) => createFastifyPlugin(receiver, o),
    fetchHandler: () => createFetchHandler(receiver),
    idle: () => bridge.idle(),
  };
}
