/**
 * Relations between a user and an agent, each with its 1:1 conversation.
 *
 * | From | Trigger | To | Event to the agent (sealed by `system`) |
 * |---|---|---|---|
 * | none / revoked | user adds the agent (`POST /conversations`) | established | `relation.established` |
 * | established, suspended | user revokes (`DELETE /conversations/:id`) | revoked | `relation.revoked` |
 * | established | platform suspends (control API) | suspended | `relation.suspended` |
 * | suspended | platform restores (control API) | established | `relation.restored` |
 *
 * Every payload is `{ type, user_id, conversation_id, agent_id }`; the
 * envelope's conversation id is the conversation's.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { governanceFailure } from '../agents/authenticate-agent.js';
import { currentKey } from '../agents/records.js';
import { sendSystemEvent } from '../agents/system-events.js';
import type { SystemSealedEventType } from 'agent-messaging-sdk/protocol';
import type { ServerContext } from '../context.js';
import { fail } from '../http/failure.js';
import { existingStreamRelay } from '../streams/relay.js';
import type { ConversationRecord, RelationState } from '../store/agent-types.js';
import { denyOpenArtifactsOnRevoke } from '../artifacts/service.js';

/** Wire view of a conversation. */
export function conversationView(c: ConversationRecord) {
  return {
    conversation_id: c.conversationId,
    user_id: c.userId,
    agent_id: c.agentId,
    state: c.state,
    created_at: new Date(c.createdAtMs).toISOString(),
    updated_at: new Date(c.updatedAtMs).toISOString(),
  };
}

function relationEvent(
  ctx: ServerContext,
  type: SystemSealedEventType,
  c: ConversationRecord,
): Promise<unknown> {
  const payload = { user_id: c.userId, conversation_id: c.conversationId, agent_id: c.agentId };
  return sendSystemEvent(ctx, c.agentId, type, payload, c.conversationId);
}

/**
 * A user adds an agent: the 1:1 conversation is created (or re-established
 * after a revocation) and the agent receives `relation.established`.
 *
 * @throws {@link ServerFailure} AGENT_NOT_FOUND, AGENT_SUSPENDED / AGENT_BANNED,
 * AGENT_NOT_REGISTERED (no keys yet), KEY_BACKUP_NOT_FOUND (the user has no keys yet).
 */
export async function establishRelation(
  ctx: ServerContext,
  userId: string,
  agentId: string,
): Promise<{ readonly conversation: ConversationRecord; readonly created: boolean }> {
  const agent = await ctx.store.agents.get(agentId);
  if (agent === undefined) throw fail('AGENT_NOT_FOUND', 'No such agent.');
  const governed = governanceFailure(agent);
  if (governed !== undefined) throw governed;
  if (currentKey(agent, ctx.clock.now()) === undefined) {
    throw fail('AGENT_NOT_REGISTERED', 'The agent has not registered its public keys yet.');
  }
  if ((await ctx.store.keyBackups.get(userId)) === undefined) {
    throw fail('KEY_BACKUP_NOT_FOUND', 'Upload a key backup (POST /keys/backup) before adding an agent.');
  }
  const r = await ctx.store.conversations.establish(userId, agentId, randomUUID(), ctx.clock.now());
  if (r.changed) await relationEvent(ctx, 'relation.established', r.conversation);
  return { conversation: r.conversation, created: r.created };
}

const TRANSITIONS = {
  revoke: { from: ['established', 'suspended'], to: 'revoked', event: 'relation.revoked' },
  suspend: { from: ['established'], to: 'suspended', event: 'relation.suspended' },
  restore: { from: ['suspended'], to: 'established', event: 'relation.restored' },
} as const satisfies Record<
  string,
  { from: readonly RelationState[]; to: RelationState; event: SystemSealedEventType }
>;

/** A relation change. */
export type RelationChange = keyof typeof TRANSITIONS;

/**
 * Applies a relation change and sends its event to the agent.
 *
 * @throws {@link ServerFailure} CONVERSATION_NOT_FOUND, or VALIDATION_ERROR
 * (`reason: invalid_state`, `params.state`) when the relation is not in a state the change starts from.
 */
export async function changeRelation(
  ctx: ServerContext,
  conversationId: string,
  change: RelationChange,
): Promise<ConversationRecord> {
  const t = TRANSITIONS[change];
  const next = await ctx.store.conversations.transition(conversationId, t.from, t.to, ctx.clock.now());
  if (next === undefined) {
    const current = await ctx.store.conversations.get(conversationId);
    if (current === undefined) throw fail('CONVERSATION_NOT_FOUND', 'No such conversation.');
    throw fail('VALIDATION_ERROR', `The relation is ${current.state}; it cannot be changed that way.`, {
      reason: 'invalid_state',
      state: current.state,
    });
  }
  if (next.state !== 'established') existingStreamRelay(ctx)?.relationChanged(conversationId);
  await relationEvent(ctx, t.event, next);
  if (change === 'revoke') await denyOpenArtifactsOnRevoke(ctx, conversationId);
  return next;
}
