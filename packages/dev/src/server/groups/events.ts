/**
 * The two group events, `group.updated` and `system.group_key_rotated`:
 * sealed by the system sender to each recipient alone (like every service
 * event) and sent over WebSocket only: to an agent's open WebSocket (never
 * its webhook: both types are WebSocket-only), and to every open WebSocket
 * of a user. They are not stored: a member that is offline reads the group's
 * state (`GET /groups/:id`) when it comes back.
 *
 * @module
 */
import { WEBHOOK_BODY_VERSION } from 'agent-messaging-sdk/protocol';
import { sendSystemEvent } from '../agents/system-events.js';
import type { ServerContext } from '../context.js';
import type { GroupMemberKind } from '../store/group-types.js';

/** A group event type. */
export type GroupEventType = 'group.updated' | 'system.group_key_rotated';

/** One recipient of a group event. */
export interface GroupEventRecipient {
  readonly id: string;
  readonly kind: GroupMemberKind;
}

async function toUser(
  ctx: ServerContext,
  userId: string,
  type: GroupEventType,
  payload: Readonly<Record<string, unknown>>,
  conversationId: string,
): Promise<void> {
  const backup = await ctx.store.keyBackups.get(userId);
  if (backup === undefined) return;
  const event = ctx.system.event(
    type,
    { type, ...payload },
    { id: userId, publicKeys: [backup.record.public_key] },
    conversationId,
  );
  if (event === undefined) return;
  const conns = ctx.hub.connections(
    (c) => c.state === 'open' && c.principal?.kind === 'user' && c.principal.userId === userId,
  );
  for (const conn of conns) {
    conn.send({
      type,
      version: WEBHOOK_BODY_VERSION,
      wire_envelope: event.wireEnvelope,
      metadata: event.metadata,
      message_id: event.messageId,
    });
  }
}

/**
 * Seals and sends a group event to each recipient (in order; a failure for
 * one recipient is logged and does not stop the others).
 */
export async function sendGroupEvent(
  ctx: ServerContext,
  recipients: readonly GroupEventRecipient[],
  type: GroupEventType,
  payload: Readonly<Record<string, unknown>>,
  conversationId: string,
): Promise<void> {
  for (const r of recipients) {
    try {
      if (r.kind === 'agent') await sendSystemEvent(ctx, r.id, type, payload, conversationId);
      else await toUser(ctx, r.id, type, payload, conversationId);
    } catch (err) {
      ctx.logger.error(`group event ${type} not sent: ${(err as Error).name}`);
    }
  }
}
