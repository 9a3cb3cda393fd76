/**
 * The reference server's data grants, in memory beside the store (one
 * instance per server context). A grant moves pending → granted | denied,
 * and granted → revoked; `expired` is not stored but computed on read once
 * the window has ended (the server's clock, virtual in tests).
 *
 * @module
 */
import type { GrantScope, GrantStatus } from 'agent-messaging-sdk/protocol';

/** One grant (request). */
export interface GrantRecord {
  readonly grantId: string;
  readonly agentId: string;
  readonly userId: string;
  readonly conversationId: string;
  readonly scope: GrantScope;
  readonly reason: string;
  /** Requested, then the window granted (never longer than requested). */
  windowSeconds: number;
  status: 'pending' | 'granted' | 'denied' | 'revoked';
  readonly requestedAtMs: number;
  decidedAtMs: number | undefined;
  expiresAtMs: number | undefined;
  revokedAtMs: number | undefined;
}

const byContext = new WeakMap<object, Map<string, GrantRecord>>();

/** Every grant of the server whose context is `owner`, by id. */
export function grantsOf(owner: object): Map<string, GrantRecord> {
  let all = byContext.get(owner);
  if (all === undefined) {
    all = new Map();
    byContext.set(owner, all);
  }
  return all;
}

/** The status of `g` at `nowMs` (`expired` once a granted window has ended). */
export function grantStatus(g: GrantRecord, nowMs: number): GrantStatus {
  if (g.status === 'granted' && g.expiresAtMs !== undefined && nowMs >= g.expiresAtMs) return 'expired';
  return g.status;
}

function iso(ms: number | undefined): string | null {
  return ms === undefined ? null : new Date(ms).toISOString();
}

/** Wire view of a grant. */
export function grantView(g: GrantRecord, nowMs: number) {
  return {
    grant_id: g.grantId,
    agent_id: g.agentId,
    user_id: g.userId,
    conversation_id: g.conversationId,
    scope: g.scope,
    reason: g.reason,
    status: grantStatus(g, nowMs),
    window_seconds: g.windowSeconds,
    requested_at: new Date(g.requestedAtMs).toISOString(),
    decided_at: iso(g.decidedAtMs),
    expires_at: iso(g.expiresAtMs),
    revoked_at: iso(g.revokedAtMs),
  };
}
