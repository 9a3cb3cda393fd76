/**
 * Conversations (user side) and the agent's list of its conversations.
 *
 * | Method | Path | Auth | Body | `data` |
 * |---|---|---|---|---|
 * | POST | /conversations | user | `{ agent_id }` | 201 new / 200 existing: conversation view |
 * | GET | /conversations | user | | the user's conversations |
 * | GET | /conversations/:id | member (user or agent) | | view plus `members` with their public keys |
 * | DELETE | /conversations/:id | the user | | revoked view (idempotent) |
 * | GET | /agents/:id/conversations | agent | | the agent's conversations |
 *
 * A conversation view is `{ conversation_id, user_id, agent_id, state, created_at, updated_at }`.
 * `GET /conversations/:id` of a group answers the group detail (`kind: 'group'`, see `packages/dev/src/server/groups`).
 *
 * @module
 */
import { z } from 'zod';
import { IdentifierSchema } from 'agent-messaging-sdk/protocol';
import type { ServerContext } from '../context.js';
import { fail } from '../http/failure.js';
import { defineRoute, type Route } from '../http/router.js';
import { ok } from '../http/respond.js';
import type { AnyPrincipal } from '../http/types.js';
import type { ConversationRecord } from '../store/agent-types.js';
import { changeRelation, conversationView, establishRelation } from './service.js';
import { lookupKeys } from '../agents/key-lookup.js';
import { CORE_ROUTES } from 'agent-messaging-sdk/protocol';
import { callersGroup } from '../groups/relay.js';
import { groupDetail } from '../groups/views.js';

/**
 * The conversation `id` if the caller is a member.
 *
 * @throws {@link ServerFailure} CONVERSATION_NOT_FOUND for a user (unknown or not theirs);
 * CONVERSATION_FORBIDDEN for an agent that is not in it.
 */
export async function memberConversation(
  ctx: ServerContext,
  principal: AnyPrincipal,
  id: string,
): Promise<ConversationRecord> {
  const c = await ctx.store.conversations.get(id);
  if (principal.kind === 'user') {
    if (c === undefined || c.userId !== principal.userId)
      throw fail('CONVERSATION_NOT_FOUND', 'No such conversation.');
    return c;
  }
  if (c === undefined || c.agentId !== principal.agentId) {
    throw fail('CONVERSATION_FORBIDDEN', 'This agent is not in the conversation.');
  }
  return c;
}

async function memberKeys(ctx: ServerContext, principal: AnyPrincipal, c: ConversationRecord) {
  const out = [];
  for (const id of [c.userId, c.agentId]) {
    try {
      out.push(await lookupKeys(ctx, principal, id));
    } catch {
      out.push({ id, kind: id === c.userId ? 'user' : 'agent', public_key: null });
    }
  }
  return out;
}

const create = defineRoute({
  method: CORE_ROUTES.createConversation.method,
  path: CORE_ROUTES.createConversation.path,
  auth: 'user',
  body: z.strictObject({ agent_id: IdentifierSchema }),
  async handler({ ctx, principal, body }) {
    const { conversation, created } = await establishRelation(ctx, principal.userId, body.agent_id);
    return ok(conversationView(conversation), created ? 201 : 200);
  },
});

const list = defineRoute({
  method: CORE_ROUTES.listConversations.method,
  path: CORE_ROUTES.listConversations.path,
  auth: 'user',
  async handler({ ctx, principal }) {
    return ok((await ctx.store.conversations.listByUser(principal.userId)).map(conversationView));
  },
});

const read = defineRoute({
  method: CORE_ROUTES.getConversation.method,
  path: CORE_ROUTES.getConversation.path,
  auth: 'user_or_agent',
  async handler({ ctx, principal, params }) {
    const group = await callersGroup(ctx, principal, params['id']!);
    if (group !== undefined) return ok(await groupDetail(ctx, principal, group));
    const c = await memberConversation(ctx, principal, params['id']!);
    return ok({ ...conversationView(c), members: await memberKeys(ctx, principal, c) });
  },
});

const revoke = defineRoute({
  method: CORE_ROUTES.revokeConversation.method,
  path: CORE_ROUTES.revokeConversation.path,
  auth: 'user',
  async handler({ ctx, principal, params }) {
    const c = await memberConversation(ctx, principal, params['id']!);
    if (c.state === 'revoked') return ok(conversationView(c));
    return ok(conversationView(await changeRelation(ctx, c.conversationId, 'revoke')));
  },
});

const agentList = defineRoute({
  method: CORE_ROUTES.agentConversations.method,
  path: CORE_ROUTES.agentConversations.path,
  auth: 'agent',
  async handler({ ctx, principal }) {
    return ok((await ctx.store.conversations.listByAgent(principal.agentId)).map(conversationView));
  },
});

/** Conversation routes. */
export const conversationRoutes: readonly Route[] = [create, list, read, revoke, agentList];
