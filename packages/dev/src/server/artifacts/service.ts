/**
 * What the service enforces on artifacts, on its own clock:
 *
 * | Rule | Outcome for the agent |
 * |---|---|
 * | `high` sensitivity, unanswered 30 s after the current revision | `artifact_response` denied `user_timeout` |
 * | `tool_request`, unanswered `tool.timeout_ms` after the current revision (or answered later) | denied `tool_timeout` |
 * | `tool_request` in a conversation with more than one human member (`humanMembers` of `groups/members.ts`) | denied `tool_not_supported_in_group` at once |
 * | relation revoked while the artifact is open (in a group: its agent leaves or is removed) | denied `permission_revoked` |
 * | time to live over, unanswered | `artifact.expired` (WebSocket only) |
 *
 * Denials are sealed by the system sender (the service speaks, not the
 * human); the human's own answers (`user_rejected`, `tool_not_implemented`,
 * approvals) are sealed by the human's client.
 *
 * @module
 */
import { ARTIFACT_LIMITS, type ServiceDeniedReason } from 'agent-messaging-sdk/protocol';
import { sendSystemEvent } from '../agents/system-events.js';
import type { ServerContext } from '../context.js';
import { artifactsOf, type ArtifactRecord } from './registry.js';

/** The denial an artifact gets at once, before delivery, or undefined. */
export function immediateDenial(
  toolTimeoutMs: number | undefined,
  humanMembers: number,
): ServiceDeniedReason | undefined {
  return toolTimeoutMs !== undefined && humanMembers > 1 ? 'tool_not_supported_in_group' : undefined;
}

function clearTimers(r: ArtifactRecord, ctx: ServerContext): void {
  for (const t of r.timers.values()) ctx.clock.clearTimeout(t);
  r.timers.clear();
}

/**
 * Closes an open artifact as denied by the service and tells the agent
 * (`artifact_response`, sealed by `system`, by webhook or WebSocket).
 */
export async function denyByService(
  ctx: ServerContext,
  r: ArtifactRecord,
  reason: ServiceDeniedReason,
): Promise<void> {
  if (r.state !== 'open') return;
  r.state = 'denied';
  r.reason = reason;
  clearTimers(r, ctx);
  const payload = { artifact_id: r.artifactId, revision: r.revision, status: 'denied', reason };
  await sendSystemEvent(ctx, r.agentId, 'artifact_response', payload, r.conversationId);
}

async function expire(ctx: ServerContext, r: ArtifactRecord): Promise<void> {
  if (r.state !== 'open') return;
  r.state = 'expired';
  clearTimers(r, ctx);
  const payload = { artifact_id: r.artifactId, conversation_id: r.conversationId, revision: r.revision };
  await sendSystemEvent(ctx, r.agentId, 'artifact.expired', payload, r.conversationId);
}

function arm(
  ctx: ServerContext,
  r: ArtifactRecord,
  name: 'user_timeout' | 'tool_timeout' | 'expiry',
  ms: number,
  run: () => Promise<void>,
): void {
  const old = r.timers.get(name);
  if (old !== undefined) ctx.clock.clearTimeout(old);
  const handle = ctx.clock.setTimeout(
    () => {
      r.timers.delete(name);
      run().catch((err: unknown) =>
        ctx.logger.warn(`artifact ${name} could not be sent: ${(err as Error)?.name ?? 'error'}`),
      );
    },
    Math.max(0, ms),
    { background: true },
  );
  r.timers.set(name, handle);
}

/** Arms (or re-arms, after a new revision) the windows of an open artifact. */
export function armWindows(ctx: ServerContext, r: ArtifactRecord): void {
  const now = ctx.clock.now();
  arm(ctx, r, 'expiry', r.expiresAtMs - now, () => expire(ctx, r));
  if (r.sensitivity === 'high') {
    arm(ctx, r, 'user_timeout', ARTIFACT_LIMITS.highSensitivityTimeoutMs, () =>
      denyByService(ctx, r, 'user_timeout'),
    );
  } else {
    const t = r.timers.get('user_timeout');
    if (t !== undefined) ctx.clock.clearTimeout(t);
    r.timers.delete('user_timeout');
  }
  if (r.toolTimeoutMs !== undefined) {
    arm(ctx, r, 'tool_timeout', r.toolTimeoutMs, () => denyByService(ctx, r, 'tool_timeout'));
  }
}

/** True when the tool of an open `tool_request` ran out of time at `nowMs` (the service's clock). */
export function toolOverdue(r: ArtifactRecord, nowMs: number): boolean {
  return r.toolTimeoutMs !== undefined && nowMs - r.revisedAtMs >= r.toolTimeoutMs;
}

/** Marks an open artifact answered by the human and stops its windows. */
export function markAnswered(ctx: ServerContext, r: ArtifactRecord): void {
  r.state = 'answered';
  clearTimers(r, ctx);
}

/** The relation of a conversation was revoked: every open artifact in it is denied `permission_revoked`. */
export async function denyOpenArtifactsOnRevoke(ctx: ServerContext, conversationId: string): Promise<void> {
  for (const r of artifactsOf(ctx).openIn(conversationId)) await denyByService(ctx, r, 'permission_revoked');
}

/** An agent left a group (or was removed): its open artifacts there are denied `permission_revoked`. */
export async function denyOpenArtifactsOfMember(
  ctx: ServerContext,
  conversationId: string,
  agentId: string,
): Promise<void> {
  for (const r of artifactsOf(ctx).openIn(conversationId))
    if (r.agentId === agentId) await denyByService(ctx, r, 'permission_revoked');
}
