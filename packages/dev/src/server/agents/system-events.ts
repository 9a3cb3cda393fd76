/**
 * Sending events the service originates to an agent: sealed by the system
 * sender to every live key generation of the agent, then handed to the
 * delivery engine (WebSocket or webhook). WebSocket-only event types skip the
 * engine and go straight to the agent's open WebSocket, never to a webhook.
 *
 * @module
 */
import { isWsOnlyEventType } from 'agent-messaging-sdk/protocol';
import { isPeerSealedEventType } from 'agent-messaging-sdk/protocol';
import { WEBHOOK_BODY_VERSION } from 'agent-messaging-sdk/protocol';
import type { ServerContext } from '../context.js';
import { uuidV7 } from '../delivery/ids.js';
import { liveKeys } from './records.js';

/** Outcome of {@link ControlApi.sendSystemEvent}. */
export type SystemEventOutcome = 'queued' | 'sent' | 'no_keys' | 'no_agent' | 'not_connected';

/**
 * Seals `payload` from the system sender and delivers it to `agentId` as an
 * event of `type`, in `conversationId` (default `system`).
 */
export async function sendSystemEvent(
  ctx: ServerContext,
  agentId: string,
  type: string,
  payload: Readonly<Record<string, unknown>>,
  conversationId?: string,
): Promise<SystemEventOutcome> {
  if (isPeerSealedEventType(type)) {
    // Only the control API gets here (it simulates any service event); SDK clients refuse it.
    ctx.logger.warn(`system event ${type}: only peers seal this type; clients will refuse it`);
  }
  const agent = await ctx.store.agents.get(agentId);
  if (agent === undefined) return 'no_agent';
  const publicKeys = liveKeys(agent, ctx.clock.now()).map((k) => k.publicKey);
  const event = ctx.system.event(type, { type, ...payload }, { id: agentId, publicKeys }, conversationId);
  if (event === undefined) {
    ctx.logger.warn(`system event ${type} for an agent without registered keys was not sent`);
    return 'no_keys';
  }
  if (!isWsOnlyEventType(type)) {
    ctx.delivery.enqueue(agentId, event);
    return 'queued';
  }
  const sent = ctx.agentSockets.send(agentId, {
    type,
    version: WEBHOOK_BODY_VERSION,
    wire_envelope: event.wireEnvelope,
    metadata: event.metadata,
    delivery_id: uuidV7(ctx.clock.now()),
  });
  return sent ? 'sent' : 'not_connected';
}
