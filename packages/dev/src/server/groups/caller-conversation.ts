/**
 * A conversation the caller is in, whichever its kind: a one-to-one
 * conversation (user and agent) or a group. Features built on messages
 * (artifacts, reactions, forwarding) resolve the conversation here, so the
 * same route serves both kinds:
 *
 * | Step | One-to-one | Group |
 * |---|---|---|
 * | who may use it | its user or its agent | any member |
 * | may it take messages | the relation is established | always (a member is in it) |
 * | keys an envelope wraps to | the user's and the agent's | every member's with a live key |
 * | a new message goes to | the other side | every other member |
 *
 * @module
 */
import type { ServerContext } from '../context.js';
import type { AnyPrincipal } from '../http/types.js';
import type { EnvelopeMember } from '../messages/envelope-check.js';
import {
  acceptMessage,
  deliverToAgent,
  membersOf,
  messageFrame,
  pushToUser,
  requireEstablished,
} from '../messages/relay.js';
import { memberConversation } from '../conversations/routes.js';
import type { ConversationRecord, MessageRecord } from '../store/agent-types.js';
import type { GroupRecord } from '../store/group-types.js';
import { callersGroup, groupEnvelopeMembers, sendToGroup } from './relay.js';

/** A conversation of the caller: one-to-one or group. */
export type CallerConversation =
  | { readonly kind: 'direct'; readonly conversationId: string; readonly record: ConversationRecord }
  | { readonly kind: 'group'; readonly conversationId: string; readonly group: GroupRecord };

/** The members of a conversation, split by kind. */
export interface ConversationMembers {
  readonly userIds: readonly string[];
  readonly agentIds: readonly string[];
}

/**
 * The conversation `id` when the caller is in it: a group of which the
 * caller is a member, else the caller's one-to-one conversation.
 *
 * @throws {@link ServerFailure} CONVERSATION_NOT_FOUND (a user) or CONVERSATION_FORBIDDEN (an agent).
 */
export async function callersConversation(
  ctx: ServerContext,
  principal: AnyPrincipal,
  id: string,
): Promise<CallerConversation> {
  const group = await callersGroup(ctx, principal, id);
  if (group !== undefined) return { kind: 'group', conversationId: group.conversationId, group };
  const record = await memberConversation(ctx, principal, id);
  return { kind: 'direct', conversationId: record.conversationId, record };
}

/**
 * Refuses a send into a conversation that cannot take one: a one-to-one
 * relation that is not established. A group takes messages from any member.
 *
 * @throws {@link ServerFailure} RELATION_REVOKED, FORBIDDEN (`relation_suspended`).
 */
export function requireOpen(c: CallerConversation): void {
  if (c.kind === 'direct') requireEstablished(c.record);
}

/** Who is in the conversation. */
export function membersOfConversation(c: CallerConversation): ConversationMembers {
  if (c.kind === 'direct') return { userIds: [c.record.userId], agentIds: [c.record.agentId] };
  return {
    userIds: c.group.members.filter((m) => m.kind === 'user').map((m) => m.id),
    agentIds: c.group.members.filter((m) => m.kind === 'agent').map((m) => m.id),
  };
}

/**
 * The members an envelope in the conversation must wrap to.
 *
 * @throws {@link ServerFailure} AGENT_NOT_REGISTERED or KEY_BACKUP_NOT_FOUND (one-to-one, a side without a key).
 */
export function envelopeMembersOf(ctx: ServerContext, c: CallerConversation): Promise<EnvelopeMember[]> {
  return c.kind === 'direct' ? membersOf(ctx, c.record) : groupEnvelopeMembers(ctx, c.group);
}

/**
 * Checks and stores a message from `senderId` and, when new, hands it to
 * every other member (agents through the delivery engine, users to their
 * open WebSockets).
 *
 * @throws {@link ServerFailure} INVALID_ENVELOPE, VALIDATION_ERROR (`duplicate_message_id`),
 * AGENT_NOT_REGISTERED, KEY_BACKUP_NOT_FOUND.
 */
export async function publishMessage(
  ctx: ServerContext,
  c: CallerConversation,
  senderId: string,
  wireEnvelope: string,
): Promise<{ readonly message: MessageRecord; readonly created: boolean }> {
  if (c.kind === 'group') return sendToGroup(ctx, c.group, senderId, wireEnvelope);
  const r = await acceptMessage(ctx, c.record, senderId, wireEnvelope);
  if (!r.created) return r;
  if (senderId === c.record.agentId) pushToUser(ctx, c.record.userId, messageFrame('message.new', r.message));
  else deliverToAgent(ctx, c.record, r.message);
  return r;
}
