/**
 * Pure helpers over agent records: which tokens and keys are live at a given
 * time, and the wire views of an agent and its keys.
 *
 * @module
 */
import type { ServerContext } from '../context.js';
import type {
  AgentKeyGeneration,
  AgentRecord,
  AgentTokenRecord,
  GovernanceLevel,
} from '../store/agent-types.js';

const iso = (ms: number): string => new Date(ms).toISOString();

/** True when a token or key generation is usable at `nowMs`. */
export function isLive(item: AgentTokenRecord | AgentKeyGeneration, nowMs: number): boolean {
  return item.validUntilMs === undefined || nowMs < item.validUntilMs;
}

/** Live key generations, current first, then retired ones in grace (newest first). */
export function liveKeys(agent: AgentRecord, nowMs: number): AgentKeyGeneration[] {
  const all = agent.keys === undefined ? agent.retiredKeys : [agent.keys, ...agent.retiredKeys];
  return all.filter((k) => isLive(k, nowMs));
}

/** The key senders must wrap to, or undefined (AGENT_NOT_REGISTERED). */
export function currentKey(agent: AgentRecord, nowMs: number): AgentKeyGeneration | undefined {
  return agent.keys !== undefined && isLive(agent.keys, nowMs) ? agent.keys : undefined;
}

/** Live tokens (current and in grace). */
export function liveTokens(agent: AgentRecord, nowMs: number): AgentTokenRecord[] {
  return agent.tokens.filter((t) => isLive(t, nowMs));
}

/** The wire view of one key generation of an agent. */
export interface AgentKeyView {
  readonly public_key: string;
  readonly signing_public_key: string;
  readonly key_id: string;
  readonly signing_key_id: string;
  /** ISO 8601 UTC. */
  readonly registered_at: string;
  /** End of the grace of a retired generation; `null` for the current one. */
  readonly valid_until: string | null;
  /** Number of the generation (1 for the first registered one). */
  readonly generation: number;
}

/** The wire view of an agent (`GET /agents/:id`), for its owner and for itself. */
export interface AgentView {
  readonly agent_id: string;
  readonly owner_id: string;
  readonly name: string;
  readonly created_at: string;
  readonly connection_status: 'ready' | 'unreachable';
  readonly delivery_mode: 'websocket' | 'webhook';
  readonly webhook_url: string | null;
  readonly pending_count: number;
  readonly governance: { readonly level: GovernanceLevel; readonly reason: string | null };
  readonly keys: AgentKeyView | null;
  readonly key_rotation_pending: boolean;
  readonly token_status: {
    readonly active: boolean;
    readonly grace_tokens: number;
    readonly grace_until: string | null;
  };
}

/** Wire view of one key generation. */
export function keyView(k: AgentKeyGeneration): AgentKeyView {
  return {
    public_key: k.publicKey,
    signing_public_key: k.signingPublicKey,
    key_id: k.keyId,
    signing_key_id: k.signingKeyId,
    registered_at: iso(k.registeredAtMs),
    valid_until: k.validUntilMs === undefined ? null : iso(k.validUntilMs),
    generation: k.generation ?? 1,
  };
}

/** Wire view of an agent, for its owner and for itself. */
export function agentView(ctx: ServerContext, agent: AgentRecord): AgentView {
  const now = ctx.clock.now();
  const tokens = liveTokens(agent, now);
  const grace = tokens.filter((t) => t.validUntilMs !== undefined);
  const key = currentKey(agent, now);
  const webhook = ctx.delivery.getWebhook(agent.agentId);
  return {
    agent_id: agent.agentId,
    owner_id: agent.ownerId,
    name: agent.name,
    created_at: iso(agent.createdAtMs),
    connection_status: ctx.delivery.connectionStatus(agent.agentId),
    delivery_mode: webhook === undefined ? 'websocket' : 'webhook',
    webhook_url: webhook?.url ?? null,
    pending_count: ctx.delivery.pendingCount(agent.agentId),
    governance: { level: agent.governance.level, reason: agent.governance.reason },
    keys: key === undefined ? null : keyView(key),
    key_rotation_pending: agent.keyRotationPending,
    token_status: {
      active: tokens.some((t) => t.validUntilMs === undefined),
      grace_tokens: grace.length,
      grace_until: grace.length === 0 ? null : iso(Math.max(...grace.map((t) => t.validUntilMs!))),
    },
  };
}
