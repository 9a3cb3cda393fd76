/**
 * Governance: the platform sets a level with a reason (control API).
 *
 * | Level | Agent REST calls | Agent WebSocket |
 * |---|---|---|
 * | `none` | allowed | allowed |
 * | `L1` restricted | reads allowed; sending messages → 403 AGENT_RESTRICTED | stays open |
 * | `L2` suspended | every call → 403 AGENT_SUSPENDED (except reading its governance) | `agent.governance`, then close 4010; new connections refused (`auth.error` `agent_suspended`) |
 * | `L3` banned | every call → 403 AGENT_BANNED (same exception) | `agent.governance`, then close 4011; refused (`agent_banned`) |
 *
 * Every change sends `agent.governance` (WebSocket only, never by webhook)
 * with a cleartext `payload: { agent_id, level, reason }` and a `delivery_id`;
 * it carries no envelope so it reaches an agent without registered keys too.
 *
 * `GET /agents/:id/governance` (owner, or the agent itself at any level) →
 * `{ agent_id, level, state, reason, updated_at }`.
 *
 * @module
 */
import { z } from 'zod';
import type { ServerContext } from '../context.js';
import { fail } from '../http/failure.js';
import { defineRoute, type Route } from '../http/router.js';
import { ok } from '../http/respond.js';
import type { AgentRecord, GovernanceLevel } from '../store/agent-types.js';
import { uuidV7 } from '../delivery/ids.js';
import { WS_CLOSE } from '../ws/frames.js';
import { agentFor } from './routes.js';
import { SYSTEM_CONVERSATION_ID, SYSTEM_SENDER_ID } from './system-sender.js';

/** Governance levels the control API accepts. */
export const GovernanceLevelSchema = z.enum(['none', 'L1', 'L2', 'L3']);

/** Longest governance reason, in characters (our bound). */
export const GOVERNANCE_REASON_MAX_CHARS = 500;

const STATE: Record<GovernanceLevel, string> = {
  none: 'active',
  L1: 'restricted',
  L2: 'suspended',
  L3: 'banned',
};

/** Wire view of an agent's governance. */
export function governanceView(agent: AgentRecord) {
  const g = agent.governance;
  return {
    agent_id: agent.agentId,
    level: g.level,
    state: STATE[g.level],
    reason: g.reason,
    updated_at: new Date(g.updatedAtMs).toISOString(),
  };
}

/**
 * Refuses an agent action that L1 restricts (sending to users).
 *
 * @throws {@link ServerFailure} AGENT_RESTRICTED with `params: { level, reason }`.
 */
export function requireUnrestricted(agent: AgentRecord): void {
  if (agent.governance.level !== 'none') {
    const { level, reason } = agent.governance;
    throw fail('AGENT_RESTRICTED', 'This agent is restricted (governance level L1).', { level, reason });
  }
}

/**
 * Sets the agent's governance level, tells its WebSocket and, for L2/L3,
 * closes it.
 *
 * @throws {@link ServerFailure} AGENT_NOT_FOUND.
 */
export async function setGovernance(
  ctx: ServerContext,
  agentId: string,
  level: GovernanceLevel,
  reason: string | null,
): Promise<AgentRecord> {
  const now = ctx.clock.now();
  const updated = await ctx.store.agents.update(agentId, (a) => ({
    ...a,
    governance: { level, reason, updatedAtMs: now },
  }));
  if (updated === undefined || 'refused' in updated) throw fail('AGENT_NOT_FOUND', 'No such agent.');
  const frame = {
    type: 'agent.governance',
    metadata: {
      conversation_id: SYSTEM_CONVERSATION_ID,
      sender_id: SYSTEM_SENDER_ID,
      created_at: new Date(now).toISOString(),
    },
    payload: { agent_id: agentId, level, reason },
    delivery_id: uuidV7(now),
  };
  if (level === 'L2' || level === 'L3') {
    const code = level === 'L2' ? WS_CLOSE.AGENT_SUSPENDED : WS_CLOSE.AGENT_BANNED;
    ctx.agentSockets.close(agentId, code, level === 'L2' ? 'agent_suspended' : 'agent_banned', { frame });
  } else {
    ctx.agentSockets.send(agentId, frame);
  }
  return updated;
}

const read = defineRoute({
  method: 'GET',
  path: '/agents/:id/governance',
  auth: 'user_or_agent',
  agent: { allowGoverned: true },
  async handler({ ctx, principal, params }) {
    return ok(governanceView(await agentFor(ctx, principal, params['id']!)));
  },
});

/** Governance routes. */
export const governanceRoutes: readonly Route[] = [read];
