/**
 * Delivery-failure notices: when the delivery engine drops events that
 * waited 24 h in an agent's pending queue, each message's sender is told.
 *
 * The notice is an event of type {@link DELIVERY_FAILED_EVENT} sealed by the
 * system sender, payload
 * `{ type: 'delivery.failed', message_id, conversation_id, recipient_id, reason: 'pending_expired' }`:
 * - a user sender gets it as a message of the conversation from `system`
 *   (REST inbox) and as a frame on their open WebSockets;
 * - an agent sender gets it through the delivery engine like any event.
 *
 * Events the service itself originated (sender `system`) produce no notice.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { sendSystemEvent } from '../agents/system-events.js';
import { SYSTEM_SENDER_ID } from '../agents/system-sender.js';
import type { SystemSealedEventType } from 'agent-messaging-sdk/protocol';
import type { ServerContext } from '../context.js';
import type { OutboundEvent } from '../delivery/types.js';
import { messageFrame, pushToUser } from './relay.js';

/** Event type of a delivery-failure notice (one of the system-sealed types). */
export const DELIVERY_FAILED_EVENT = 'delivery.failed' satisfies SystemSealedEventType;

async function noticeToUser(
  ctx: ServerContext,
  userId: string,
  conversationId: string,
  payload: Readonly<Record<string, unknown>>,
): Promise<void> {
  const backup = await ctx.store.keyBackups.get(userId);
  if (backup === undefined) return;
  const event = ctx.system.event(
    DELIVERY_FAILED_EVENT,
    payload,
    { id: userId, publicKeys: [backup.record.public_key] },
    conversationId,
  );
  if (event === undefined) return;
  const { message } = await ctx.store.messages.append({
    messageId: event.messageId ?? randomUUID(),
    conversationId,
    senderId: SYSTEM_SENDER_ID,
    createdAt: event.metadata.created_at,
    receivedAtMs: ctx.clock.now(),
    wireEnvelope: event.wireEnvelope,
  });
  pushToUser(ctx, userId, messageFrame(DELIVERY_FAILED_EVENT, message));
}

async function notify(ctx: ServerContext, recipientId: string, event: OutboundEvent): Promise<void> {
  const senderId = event.metadata.sender_id;
  if (senderId === SYSTEM_SENDER_ID || event.messageId === undefined) return;
  const conversationId = event.metadata.conversation_id;
  const payload = {
    type: DELIVERY_FAILED_EVENT,
    message_id: event.messageId,
    conversation_id: conversationId,
    recipient_id: recipientId,
    reason: 'pending_expired',
  };
  if (ctx.agentIds.has(senderId)) {
    await sendSystemEvent(ctx, senderId, DELIVERY_FAILED_EVENT, payload, conversationId);
  } else {
    await noticeToUser(ctx, senderId, conversationId, payload);
  }
}

/** Sends a delivery-failure notice for each dropped event (sequentially, in order). */
export function sendDeliveryFailureNotices(
  ctx: ServerContext,
  agentId: string,
  events: readonly OutboundEvent[],
): Promise<void> {
  return events.reduce<Promise<void>>(
    (prev, e) =>
      prev.then(() =>
        notify(ctx, agentId, e).catch((err: unknown) => {
          ctx.logger.error(`delivery-failure notice failed: ${(err as Error).name}`);
        }),
      ),
    Promise.resolve(),
  );
}
