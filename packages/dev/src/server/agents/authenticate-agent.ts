/**
 * Agent authentication on REST: `Authorization: Bearer hsk_…`.
 *
 * - No bearer token, or a bearer token that is not an agent token → 401 UNAUTHORIZED.
 * - An `hsk_` token that is wrong, malformed, revoked, rotated out or past its
 *   grace → 401 AGENT_TOKEN_INVALID.
 * - The agent is suspended (L2) or banned (L3) → 403 AGENT_SUSPENDED /
 *   AGENT_BANNED, `params: { level, reason }` (unless the route allows it).
 * - The path names another agent → 403 FORBIDDEN (see {@link requireAgentSelf}).
 *
 * @module
 */
import { bearerToken } from '../auth/authenticate.js';
import type { ServerContext } from '../context.js';
import { fail, type ServerFailure } from '../http/failure.js';
import type { AgentPrincipal, ServerRequest } from '../http/types.js';
import type { AgentRecord } from '../store/agent-types.js';

/** Options of {@link authenticateAgent}. */
export interface AuthenticateAgentOptions {
  /** The agent the request names, if any (speeds up a token's first check). */
  readonly agentHint?: string | undefined;
  /** Let suspended and banned agents through. @defaultValue false */
  readonly allowGoverned?: boolean;
}

/** The refusal for a governed agent, or undefined when L2/L3 does not apply. */
export function governanceFailure(agent: AgentRecord): ServerFailure | undefined {
  const { level, reason } = agent.governance;
  if (level === 'L2') {
    return fail('AGENT_SUSPENDED', 'This agent is suspended (governance level L2).', { level, reason });
  }
  if (level === 'L3')
    return fail('AGENT_BANNED', 'This agent is banned (governance level L3).', { level, reason });
  return undefined;
}

/** The refusal for an agent token that is not accepted. */
export function agentTokenInvalid(): ServerFailure {
  return fail('AGENT_TOKEN_INVALID', 'The agent token is invalid, revoked, expired or rotated out.');
}

/**
 * The principal of a request with an agent token.
 *
 * @throws {@link ServerFailure} UNAUTHORIZED, AGENT_TOKEN_INVALID, AGENT_SUSPENDED or AGENT_BANNED.
 */
export async function authenticateAgent(
  ctx: ServerContext,
  req: ServerRequest,
  options: AuthenticateAgentOptions = {},
): Promise<AgentPrincipal> {
  const token = bearerToken(req);
  if (token === undefined) throw fail('UNAUTHORIZED', 'An agent token is required.');
  if (!token.startsWith('hsk_')) {
    throw fail('UNAUTHORIZED', 'This endpoint needs an agent token (Bearer hsk_…).', {
      reason: 'agent_token_required',
    });
  }
  const match = await ctx.agentTokens.check(token, options.agentHint);
  const agent = match === undefined ? undefined : await ctx.store.agents.get(match.agentId);
  if (match === undefined || agent === undefined) throw agentTokenInvalid();
  const governed = options.allowGoverned === true ? undefined : governanceFailure(agent);
  if (governed !== undefined) throw governed;
  return { kind: 'agent', agentId: match.agentId, tokenId: match.tokenId };
}

/**
 * The agent id of the path (`:id` or `:agent_id`), which must be the token's agent.
 *
 * @throws {@link ServerFailure} FORBIDDEN (`params.reason = 'agent_mismatch'`) otherwise.
 * @example
 * ```ts
 * handler({ params, principal }) {
 *   const agentId = requireAgentSelf(principal, params);
 * }
 * ```
 */
export function requireAgentSelf(
  principal: AgentPrincipal,
  params: Readonly<Record<string, string>>,
): string {
  const id = params['id'] ?? params['agent_id'];
  if (id !== principal.agentId) {
    throw fail('FORBIDDEN', 'An agent token may only act on its own agent.', { reason: 'agent_mismatch' });
  }
  return id;
}
