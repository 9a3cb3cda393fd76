/**
 * Agent operations shared by the REST routes and the control API: creation,
 * token regeneration and revocation, and the owner check.
 *
 * Token lifecycle (spec "Agent token lifecycle"):
 * - regenerate, `emergency: false` → the new token is current; every live old
 *   token and the current public key get a grace end of now + 7 days; open
 *   connections on old tokens keep working until then (then `auth.error`
 *   `token_revoked`, close 4005).
 * - regenerate, `emergency: true` → old tokens and all old keys are dropped at
 *   once; their connections get `auth.error` `token_revoked` and close 4005.
 * - `DELETE /agents/:id/token` → no token at all; every connection closes 4005.
 *
 * Either regeneration sets `key_rotation_pending`: the agent registers a new
 * key pair with the new token (`PUT /agents/:id/keys`).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { LIMITS } from 'agent-messaging-sdk/protocol';
import type { ServerContext } from '../context.js';
import { fail } from '../http/failure.js';
import type { AgentRecord } from '../store/agent-types.js';
import { WS_CLOSE } from '../ws/frames.js';
import { isLive, liveTokens } from './records.js';

/**
 * The agent `agentId` if `userId` owns it.
 *
 * @throws {@link ServerFailure} AGENT_NOT_FOUND for an unknown agent and for
 * another user's agent alike (no enumeration).
 */
export async function ownedAgent(ctx: ServerContext, userId: string, agentId: string): Promise<AgentRecord> {
  const agent = await ctx.store.agents.get(agentId);
  if (agent === undefined || agent.ownerId !== userId) throw fail('AGENT_NOT_FOUND', 'No such agent.');
  return agent;
}

/** The agent, or AGENT_NOT_FOUND. */
export async function existingAgent(ctx: ServerContext, agentId: string): Promise<AgentRecord> {
  const agent = await ctx.store.agents.get(agentId);
  if (agent === undefined) throw fail('AGENT_NOT_FOUND', 'No such agent.');
  return agent;
}

/**
 * Creates an agent for `ownerId` with a first token (returned once).
 *
 * @throws {@link ServerFailure} AGENT_LIMIT_EXCEEDED (`params.max`).
 */
export async function createAgent(
  ctx: ServerContext,
  ownerId: string,
  name: string,
): Promise<{ readonly agent: AgentRecord; readonly token: string }> {
  const issued = await ctx.agentTokens.issue();
  const now = ctx.clock.now();
  const record: AgentRecord = {
    agentId: randomUUID(),
    ownerId,
    name,
    createdAtMs: now,
    tokens: [issued.record],
    keys: undefined,
    retiredKeys: [],
    keyRotationPending: false,
    governance: { level: 'none', reason: null, updatedAtMs: now },
  };
  const max = ctx.options.maxAgentsPerUser;
  const created = await ctx.store.agents.create(record, max);
  if (created === 'limit') {
    throw fail('AGENT_LIMIT_EXCEEDED', `A user can own at most ${max} agents.`, { max });
  }
  ctx.agentIds.add(created.agentId);
  // The dev console's user feed (nobody listens outside dev mode): the page lists the agents again.
  ctx.consoleFeed.tellUser(ownerId, 'agent_created', created.agentId, now);
  return { agent: created, token: issued.token };
}

function rotated(
  agent: AgentRecord,
  newToken: AgentRecord['tokens'][number],
  emergency: boolean,
  now: number,
) {
  const graceUntil = now + LIMITS.TOKEN_GRACE_MS;
  const endAt = (until: number | undefined): number => Math.min(until ?? graceUntil, graceUntil);
  const keys =
    emergency || agent.keys === undefined || !isLive(agent.keys, now)
      ? undefined
      : { ...agent.keys, validUntilMs: endAt(agent.keys.validUntilMs) };
  const next: AgentRecord = {
    ...agent,
    tokens: [
      newToken,
      ...(emergency
        ? []
        : liveTokens(agent, now).map((t) => ({ ...t, validUntilMs: endAt(t.validUntilMs) }))),
    ],
    keys,
    retiredKeys: emergency ? [] : agent.retiredKeys.filter((k) => isLive(k, now)),
    keyRotationPending: true,
  };
  return next;
}

/** Outcome of {@link regenerateToken}. */
export interface Regeneration {
  readonly token: string;
  /** End of the old token's grace; undefined in emergency mode. */
  readonly graceUntilMs: number | undefined;
  readonly agent: AgentRecord;
}

/**
 * Issues a new token for the agent (rate limit: 5 per 24 h per agent).
 *
 * @throws {@link ServerFailure} TOKEN_ROTATION_RATE_LIMITED (429, Retry-After) or AGENT_NOT_FOUND.
 */
export async function regenerateToken(
  ctx: ServerContext,
  agentId: string,
  emergency: boolean,
): Promise<Regeneration> {
  ctx.limits.enforce('tokenRotation', agentId);
  const issued = await ctx.agentTokens.issue();
  const now = ctx.clock.now();
  let before: AgentRecord | undefined;
  const updated = await ctx.store.agents.update(agentId, (agent) => {
    before = agent;
    return rotated(agent, issued.record, emergency, now);
  });
  if (updated === undefined || 'refused' in updated || before === undefined) {
    throw fail('AGENT_NOT_FOUND', 'No such agent.');
  }
  const kept = new Set(updated.tokens.map((t) => t.tokenId));
  const dropped = before.tokens.map((t) => t.tokenId).filter((id) => !kept.has(id));
  ctx.agentTokens.forget(agentId, dropped);
  if (dropped.length > 0) {
    ctx.agentSockets.close(agentId, WS_CLOSE.TOKEN_REVOKED, 'token_revoked', {
      tokenIds: dropped,
      authError: 'token_revoked',
    });
  }
  // The end of the grace of the earlier tokens kept: none after an emergency
  // regeneration or when there was no live token (e.g. after a revocation).
  const graces = updated.tokens.flatMap((t) => (t.validUntilMs === undefined ? [] : [t.validUntilMs]));
  const graceUntilMs = graces.length === 0 ? undefined : Math.max(...graces);
  for (const t of updated.tokens) {
    if (t.validUntilMs === undefined) continue;
    for (const conn of ctx.agentSockets.connections(agentId, [t.tokenId])) {
      ctx.agentSockets.armGraceEnd(conn, t.validUntilMs, now, ctx.options.authExpiringNoticeMs);
    }
  }
  return { token: issued.token, graceUntilMs, agent: updated };
}

/**
 * Deletes every token of the agent (hash cleared) and forcibly disconnects
 * its connections. Returns how many connections were closed.
 *
 * @throws {@link ServerFailure} AGENT_NOT_FOUND.
 */
export async function revokeTokens(ctx: ServerContext, agentId: string): Promise<number> {
  const updated = await ctx.store.agents.update(agentId, (agent) => ({ ...agent, tokens: [] }));
  if (updated === undefined) throw fail('AGENT_NOT_FOUND', 'No such agent.');
  ctx.agentTokens.forget(agentId);
  return ctx.agentSockets.close(agentId, WS_CLOSE.TOKEN_REVOKED, 'token_revoked', {
    authError: 'token_revoked',
  });
}
