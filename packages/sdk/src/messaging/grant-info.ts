/**
 * The camelCase face of a grant (wire: `GrantView`), shared by the Agent and
 * the UserClient.
 *
 * @module
 */
import type { GrantScope, GrantStatus, GrantView } from '../core/protocol/grants.js';

/** A data grant (or a request for one). */
export interface GrantInfo {
  readonly grantId: string;
  readonly agentId: string;
  readonly userId: string;
  readonly conversationId: string;
  readonly scope: GrantScope;
  /** Why the agent asks (shown to the user). */
  readonly reason: string;
  /** `pending`, `granted`, `denied`, `revoked` or `expired`. */
  readonly status: GrantStatus;
  /** The window asked for, then the one granted, in seconds. */
  readonly windowSeconds: number;
  readonly requestedAt: string;
  readonly decidedAt: string | null;
  /** End of the window once granted. */
  readonly expiresAt: string | null;
  readonly revokedAt: string | null;
}

/** {@link GrantInfo} of a wire grant view. */
export function grantInfo(v: GrantView): GrantInfo {
  return {
    grantId: v.grant_id,
    agentId: v.agent_id,
    userId: v.user_id,
    conversationId: v.conversation_id,
    scope: v.scope,
    reason: v.reason,
    status: v.status,
    windowSeconds: v.window_seconds,
    requestedAt: v.requested_at,
    decidedAt: v.decided_at,
    expiresAt: v.expires_at,
    revokedAt: v.revoked_at,
  };
}
