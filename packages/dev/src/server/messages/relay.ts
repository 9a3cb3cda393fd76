/**
 * Relaying messages (ciphertext only) between a user and an agent.
 *
 * - Agent → user (`POST /agents/:id/messages`): stored in the conversation
 *   (the user's REST inbox) and pushed to every open WebSocket of the user
 *   as a `message.new` frame.
 * - User → agent (`POST /conversations/:id/messages`): stored, and handed to
 *   the delivery engine as `message.new` (WebSocket or webhook).
 *
 * The message id is the envelope's; sending the same envelope again is
 * idempotent (200 with the stored message), another envelope with a used id
 * is VALIDATION_ERROR `reason: duplicate_message_id`.
 *
 * @module
 */
import { WEBHOOK_BODY_VERSION } from 'agent-messaging-sdk/protocol';
import { currentKey } from '../agents/records.js';
import type { ServerContext } from '../context.js';
import { fail, invalidField } from '../http/failure.js';
import type { ConversationRecord, MessageRecord } from '../store/agent-types.js';
import type { OutgoingFrame } from '../ws/frames.js';
import { checkEnvelope, type EnvelopeMember } from './envelope-check.js';

/** Wire view of a stored message. */
export function messageView(m: MessageRecord) {
  return {
    message_id: m.messageId,
    conversation_id: m.conversationId,
    sender_id: m.senderId,
    created_at: m.createdAt,
    received_at: new Date(m.receivedAtMs).toISOString(),
    seq: m.seq,
    wire_envelope: m.wireEnvelope,
  };
}

/** The event frame of a stored message (same shape as a webhook delivery body, plus ids). */
export function messageFrame(type: string, m: MessageRecord): OutgoingFrame {
  return {
    type,
    version: WEBHOOK_BODY_VERSION,
    wire_envelope: m.wireEnvelope,
    metadata: { conversation_id: m.conversationId, sender_id: m.senderId, created_at: m.createdAt },
    message_id: m.messageId,
    seq: m.seq,
  };
}

/**
 * Sends a stored message's frame to every open WebSocket of a user; returns
 * how many. A connection with acknowledged delivery is not written to: its
 * stream reads the message from the inbox, in order, with a `delivery_id`.
 */
export function pushToUser(ctx: ServerContext, userId: string, frame: OutgoingFrame): number {
  const conns = ctx.hub.connections(
    (c) => c.state === 'open' && c.principal?.kind === 'user' && c.principal.userId === userId,
  );
  for (const conn of conns) {
    if (ctx.userDeliveries.has(conn)) ctx.userDeliveries.wake(conn);
    else conn.send(frame);
  }
  return conns.length;
}

/**
 * The members of a conversation and the keys senders must wrap to.
 *
 * @throws {@link ServerFailure} AGENT_NOT_REGISTERED or KEY_BACKUP_NOT_FOUND when a side has no key.
 */
export async function membersOf(ctx: ServerContext, c: ConversationRecord): Promise<EnvelopeMember[]> {
  const agent = await ctx.store.agents.get(c.agentId);
  const agentKey = agent === undefined ? undefined : currentKey(agent, ctx.clock.now());
  if (agentKey === undefined) throw fail('AGENT_NOT_REGISTERED', 'The agent has no registered public key.');
  const backup = await ctx.store.keyBackups.get(c.userId);
  if (backup === undefined) throw fail('KEY_BACKUP_NOT_FOUND', 'The user has no key backup.');
  return [
    { id: c.userId, currentPublicKey: backup.record.public_key },
    { id: c.agentId, currentPublicKey: agentKey.publicKey },
  ];
}

/** Refuses a send on a relation that is not established. */
export function requireEstablished(c: ConversationRecord): void {
  if (c.state === 'revoked') throw fail('RELATION_REVOKED', 'The user revoked this relation.');
  if (c.state === 'suspended') {
    throw fail('FORBIDDEN', 'The platform suspended this relation.', { reason: 'relation_suspended' });
  }
}

/**
 * Checks and stores a message from `senderId`.
 *
 * @returns the stored message and whether it was new.
 * @throws {@link ServerFailure} INVALID_ENVELOPE, VALIDATION_ERROR (`duplicate_message_id`),
 * AGENT_NOT_REGISTERED, KEY_BACKUP_NOT_FOUND.
 */
export async function acceptMessage(
  ctx: ServerContext,
  c: ConversationRecord,
  senderId: string,
  wireEnvelope: string,
): Promise<{ readonly message: MessageRecord; readonly created: boolean }> {
  return storeChecked(ctx, c.conversationId, await membersOf(ctx, c), senderId, wireEnvelope);
}

/**
 * Checks an envelope against the conversation's members and stores it (any
 * conversation kind: one-to-one or group).
 *
 * @throws {@link ServerFailure} INVALID_ENVELOPE, VALIDATION_ERROR (`duplicate_message_id`).
 */
export async function storeChecked(
  ctx: ServerContext,
  conversationId: string,
  members: readonly EnvelopeMember[],
  senderId: string,
  wireEnvelope: string,
): Promise<{ readonly message: MessageRecord; readonly created: boolean }> {
  const header = checkEnvelope(wireEnvelope, { senderId, conversationId, members });
  const { message, duplicate } = await ctx.store.messages.append({
    messageId: header.messageId,
    conversationId,
    senderId,
    createdAt: header.createdAt,
    receivedAtMs: ctx.clock.now(),
    wireEnvelope,
  });
  if (duplicate && (message.wireEnvelope !== wireEnvelope || message.senderId !== senderId)) {
    throw invalidField(
      'wire_envelope',
      'duplicate_message_id',
      {},
      'Another message already has this message id.',
    );
  }
  return { message, created: !duplicate };
}

/** Hands a user's new message to the delivery engine. */
export function deliverToAgent(
  ctx: ServerContext,
  c: Pick<ConversationRecord, 'agentId'>,
  m: MessageRecord,
): void {
  ctx.delivery.enqueue(c.agentId, {
    type: 'message.new',
    wireEnvelope: m.wireEnvelope,
    metadata: { conversation_id: m.conversationId, sender_id: m.senderId, created_at: m.createdAt },
    messageId: m.messageId,
  });
}
