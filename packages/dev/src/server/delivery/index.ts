/**
 * The reference server's delivery engine: how an event for an agent reaches
 * it (WebSocket frame or signed webhook POST), when it is retried, when the
 * agent becomes `unreachable`, and what is logged.
 *
 * @module
 */
import { Engine, type ReferenceDeliveryEngine } from './engine.js';
import { resolveEngineOptions, type DeliveryEngineOptions } from './options.js';

export type {
  AgentDeliveryTarget,
  DeliveryEngine,
  DeliveryEngineDeps,
  OutboundEvent,
  StoredObject,
  WebhookRegistration,
  WsAckOptions,
  WsSession,
} from './types.js';
export type { ReferenceDeliveryEngine } from './engine.js';
export { DEFAULT_DELIVERY_ENGINE_OPTIONS, type DeliveryEngineOptions } from './options.js';
export {
  createUndiciWebhookSender,
  type UndiciWebhookSenderOptions,
  type WebhookSendRequest,
  type WebhookSendResult,
  type WebhookSender,
} from './webhook-sender.js';
export { classifyResponse, nextRetryDelayMs, parseRetryAfter, type AttemptOutcome } from './schedule.js';
export { deliveryRoutes, DELIVERY_LOGS_LIMIT } from './routes.js';

/**
 * Creates the delivery engine. The agents core calls `enqueue` for every
 * event, `onAgentConnected` when an agent's WebSocket authenticates and
 * `setWebhook` when a webhook is registered.
 *
 * @throws {@link ConfigurationError} for a bad option (`target`, `webhookTimeoutMs`).
 * @example
 * ```ts
 * const delivery = createDeliveryEngine({
 *   clock: ctx.clock,
 *   target: { mode: (id) => modeOf(id), sendWs: (id, frame) => sendToAgent(id, frame) },
 *   onExpired: (agentId, events) => notifySenders(agentId, events),
 * });
 * delivery.setWebhook(agentId, { url: 'https://agent.example/webhook', secret });
 * delivery.enqueue(agentId, event);
 * ```
 */
export function createDeliveryEngine(options: DeliveryEngineOptions): ReferenceDeliveryEngine {
  return new Engine(resolveEngineOptions(options));
}
