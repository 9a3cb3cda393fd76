/**
 * Agents and their tokens (owner: user access token).
 *
 * | Method | Path | Auth | Body | `data` |
 * |---|---|---|---|---|
 * | POST | /agents | user | `{ name }` | 201: the agent view plus `token` (shown once) |
 * | GET | /agents | user | | the caller's agents, oldest first |
 * | GET | /agents/:id | owner or the agent | | the agent view |
 * | POST | /agents/:id/token/regenerate | owner | `{ emergency }` | `{ agent_id, token, emergency, previous_token_valid_until, key_rotation_pending, regenerations_left }` |
 * | DELETE | /agents/:id/token | owner | | `{ agent_id, token_revoked: true, disconnected }` |
 *
 * @module
 */
import { z } from 'zod';
import type { AnyPrincipal } from '../http/types.js';
import type { ServerContext } from '../context.js';
import { defineRoute, type Route } from '../http/router.js';
import { RATE_LIMIT_RULES } from '../limits/rate-limiter.js';
import { ok } from '../http/respond.js';
import { boundedText } from '../http/validation.js';
import { agentView } from './records.js';
import { createAgent, ownedAgent, existingAgent, regenerateToken, revokeTokens } from './service.js';
import { CORE_ROUTES } from 'agent-messaging-sdk/protocol';

/** Longest agent name, in user-perceived characters (our bound). */
export const AGENT_NAME_MAX_CHARS = 64;

const CreateAgentSchema = z.strictObject({
  name: boundedText(1, AGENT_NAME_MAX_CHARS, { counting: 'graphemes' }),
});
const RegenerateSchema = z.strictObject({ emergency: z.boolean() });

/** The agent `:id` for its owner (user) or for itself (agent; the router checked the path). */
export async function agentFor(ctx: ServerContext, principal: AnyPrincipal, agentId: string) {
  return principal.kind === 'user' ? ownedAgent(ctx, principal.userId, agentId) : existingAgent(ctx, agentId);
}

const create = defineRoute({
  method: CORE_ROUTES.createAgent.method,
  path: CORE_ROUTES.createAgent.path,
  auth: 'user',
  body: CreateAgentSchema,
  async handler({ ctx, principal, body }) {
    const { agent, token } = await createAgent(ctx, principal.userId, body.name.normalize('NFC'));
    return ok({ ...agentView(ctx, agent), token }, 201);
  },
});

const list = defineRoute({
  method: CORE_ROUTES.listAgents.method,
  path: CORE_ROUTES.listAgents.path,
  auth: 'user',
  async handler({ ctx, principal }) {
    const agents = await ctx.store.agents.listByOwner(principal.userId);
    return ok(agents.map((a) => agentView(ctx, a)));
  },
});

const read = defineRoute({
  method: CORE_ROUTES.getAgent.method,
  path: CORE_ROUTES.getAgent.path,
  auth: 'user_or_agent',
  async handler({ ctx, principal, params }) {
    return ok(agentView(ctx, await agentFor(ctx, principal, params['id']!)));
  },
});

const regenerate = defineRoute({
  method: 'POST',
  path: '/agents/:id/token/regenerate',
  auth: 'user',
  body: RegenerateSchema,
  async handler({ ctx, principal, params, body }) {
    const agent = await ownedAgent(ctx, principal.userId, params['id']!);
    const r = await regenerateToken(ctx, agent.agentId, body.emergency);
    return ok({
      agent_id: agent.agentId,
      token: r.token,
      emergency: body.emergency,
      previous_token_valid_until:
        r.graceUntilMs === undefined ? null : new Date(r.graceUntilMs).toISOString(),
      key_rotation_pending: r.agent.keyRotationPending,
      regenerations_left:
        RATE_LIMIT_RULES.tokenRotation.limit - ctx.limits.used('tokenRotation', agent.agentId),
    });
  },
});

const revoke = defineRoute({
  method: 'DELETE',
  path: '/agents/:id/token',
  auth: 'user',
  async handler({ ctx, principal, params }) {
    const agent = await ownedAgent(ctx, principal.userId, params['id']!);
    const disconnected = await revokeTokens(ctx, agent.agentId);
    return ok({ agent_id: agent.agentId, token_revoked: true, disconnected });
  },
});

/** Routes of agents and agent tokens. */
export const agentRoutes: readonly Route[] = [create, list, read, regenerate, revoke];
