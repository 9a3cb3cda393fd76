/**
 * Agents on the WebSocket hub (`/ws`, shared with users: a first frame with
 * `agent_id` is an agent's).
 *
 * First frame `{ type: 'auth', agent_id, token }` within 5 s of the upgrade,
 * optionally with `key_id` / `signing_key_id` (fingerprints of the agent's
 * local public keys, 16 hex characters). Answers:
 *
 * | Outcome | Frames | Close |
 * |---|---|---|
 * | accepted | `auth.ok`, then queued events in order | — |
 * | `agent_id` or `token` missing or not strings | `auth.error` `invalid_frame` | 4001 |
 * | wrong, revoked, rotated-out token, or another agent's | `auth.error` `invalid_token` | 4001 |
 * | L2 / L3 | `auth.error` `agent_suspended` / `agent_banned` | 4010 / 4011 |
 * | a webhook is registered | `auth.error` `webhook_mode` | 4013 |
 * | `share: true` and 10 sharing connections are open | `auth.error` `too_many_connections` | 4014 |
 * | `key_id`/`signing_key_id` given and no live registered generation has them | `auth.error` `keys_mismatch` | 4001 |
 *
 * One open connection per agent: a newly authenticated one replaces the
 * older (close 4012 `replaced`), unless both asked to share delivery
 * (`share: true` in `auth`, answered by `share: { max_sockets }` in
 * `auth.ok`): then up to {@link MAX_AGENT_SOCKETS} sharing connections live
 * side by side (one more gets `auth.error` `too_many_connections`, close
 * 4014), each conversation going to one of them (`delivery/affinity.ts`).
 * `{ type: 'connection.drain' }` (`SCALE_FRAMES.drain`) stops new work
 * going to a connection; its idle conversations move to its siblings. A connection on a token in its grace gets
 * `auth.expiring` 60 s before the grace ends and then closes (`auth.error`
 * `token_revoked`, 4005). `auth.renew` with another token of the same agent
 * (`access_token: 'hsk_…'`) moves the connection onto it.
 *
 * @module
 */
import type { ServerContext } from '../context.js';
import type { AgentPrincipal } from '../http/types.js';
import type { AgentRecord } from '../store/agent-types.js';
import type { HubConnection } from '../ws/connection.js';
import { authErrorFrame, errorFrame, WS_CLOSE, type AuthErrorReason } from '../ws/frames.js';
import { MAX_AGENT_SOCKETS } from './agent-sockets.js';
import { SCALE_FRAMES } from 'agent-messaging-sdk/protocol';
import type { AuthOutcome, ClientFrame } from '../ws/hub.js';
import { liveKeys } from './records.js';
import { ackIdsOf } from '../ws/ack-frame.js';

const MAX_CREDENTIAL_CHARS = 8192;
const KEY_ID = /^[0-9a-f]{16}$/;

function stringField(frame: ClientFrame, name: string, max: number): string | undefined {
  const v = frame[name];
  return typeof v === 'string' && v.length > 0 && v.length <= max ? v : undefined;
}

function keysMatch(frame: ClientFrame, keys: ReturnType<typeof liveKeys>): boolean {
  const keyId = frame['key_id'];
  const signingKeyId = frame['signing_key_id'];
  if (keyId === undefined && signingKeyId === undefined) return true;
  if (keys.length === 0) return true;
  return keys.some(
    (k) =>
      (keyId === undefined || (typeof keyId === 'string' && KEY_ID.test(keyId) && keyId === k.keyId)) &&
      (signingKeyId === undefined || signingKeyId === k.signingKeyId),
  );
}

/** Checks an agent token for `agentId`: the token record, or why it is refused. */
async function checkAgent(
  ctx: ServerContext,
  agentId: string,
  token: string,
): Promise<{ readonly tokenId: string; readonly agent: AgentRecord } | AuthErrorReason> {
  const match = await ctx.agentTokens.check(token, agentId);
  const agent = match === undefined ? undefined : await ctx.store.agents.get(match.agentId);
  if (match === undefined || agent === undefined || match.agentId !== agentId) return 'invalid_token';
  // The close code after each reason is the SDK's AUTH_ERROR_CLOSE_CODES (4010, 4011, 4013, else 4001).
  if (agent.governance.level === 'L2') return 'agent_suspended';
  if (agent.governance.level === 'L3') return 'agent_banned';
  if (ctx.delivery.getWebhook(agentId) !== undefined) return 'webhook_mode';
  return { tokenId: match.tokenId, agent };
}

async function authenticate(ctx: ServerContext, frame: ClientFrame): Promise<AuthOutcome> {
  const agentId = stringField(frame, 'agent_id', 256);
  const token = stringField(frame, 'token', MAX_CREDENTIAL_CHARS);
  if (agentId === undefined || token === undefined) return { ok: false, reason: 'invalid_frame' };
  const checked = await checkAgent(ctx, agentId, token);
  if (typeof checked === 'string') return { ok: false, reason: checked };
  if (!keysMatch(frame, liveKeys(checked.agent, ctx.clock.now())))
    return { ok: false, reason: 'keys_mismatch' };
  const principal: AgentPrincipal = { kind: 'agent', agentId, tokenId: checked.tokenId };
  const negotiated: Record<string, unknown> = {};
  if (frame['share'] === true) {
    const sharing = ctx.agentSockets.connections(agentId).filter((c) => c.negotiated['share'] !== undefined);
    if (sharing.length >= MAX_AGENT_SOCKETS) return { ok: false, reason: 'too_many_connections' };
    negotiated['share'] = { max_sockets: MAX_AGENT_SOCKETS };
  }
  if (frame['ack'] === true && ctx.options.wsAcks) {
    const { window, timeoutMs } = ctx.options.wsAck;
    negotiated['ack'] = { window, timeout_ms: timeoutMs };
  }
  return { ok: true, principal, negotiated };
}

/**
 * `{ type: 'connection.drain' }` on an agent connection: no new conversation
 * and no new event goes to it any more; what it holds unacknowledged stays
 * its own until acknowledged, or goes to its siblings when it closes.
 */
function onDrain(ctx: ServerContext, conn: HubConnection): void {
  const p = conn.principal;
  if (p?.kind !== 'agent') {
    conn.send(errorFrame('VALIDATION_ERROR', 'Only agent connections drain.', { reason: 'invalid_frame' }));
    return;
  }
  if (ctx.agentSockets.drain(conn)) ctx.delivery.onAgentDraining(p.agentId);
}

/**
 * `{ type: 'ack', delivery_ids: [...] }` on a connection that negotiated
 * acks: an agent's ids go to the delivery engine, a user's to the user's
 * stream (`user-deliveries.ts`).
 */
function onAck(ctx: ServerContext, frame: ClientFrame, conn: HubConnection): void {
  const ids = ackIdsOf(frame, conn);
  const p = conn.principal;
  if (ids === undefined || p === undefined) return;
  if (p.kind === 'agent') ctx.delivery.ack(p.agentId, ids);
  else ctx.userDeliveries.ack(conn, ids);
}

/** Arms (or clears) the grace-end timers of a connection for its token. */
function armTokenTimers(
  ctx: ServerContext,
  conn: HubConnection,
  agent: AgentRecord | undefined,
  tokenId: string,
) {
  const token = agent?.tokens.find((t) => t.tokenId === tokenId);
  if (token?.validUntilMs === undefined) {
    conn.clearTimer('token_expiring');
    conn.clearTimer('token_grace');
    return;
  }
  ctx.agentSockets.armGraceEnd(conn, token.validUntilMs, ctx.clock.now(), ctx.options.authExpiringNoticeMs);
}

/**
 * `{ type: 'auth.renew', access_token: 'hsk_…' }` on an agent connection: a
 * valid token of the same agent moves the connection onto it (`auth.ok`);
 * anything else is `auth.error` `invalid_token` and the connection stays on
 * its token.
 */
export async function renewAgent(ctx: ServerContext, frame: ClientFrame, conn: HubConnection): Promise<void> {
  const current = conn.principal;
  if (current?.kind !== 'agent') return;
  const token = stringField(frame, 'access_token', MAX_CREDENTIAL_CHARS);
  const checked = token === undefined ? 'invalid_token' : await checkAgent(ctx, current.agentId, token);
  if (typeof checked === 'string') {
    conn.send(authErrorFrame(checked === 'webhook_mode' ? 'invalid_token' : checked));
    return;
  }
  conn.updatePrincipal({ kind: 'agent', agentId: current.agentId, tokenId: checked.tokenId });
  conn.send({ type: 'auth.ok' });
  armTokenTimers(ctx, conn, checked.agent, checked.tokenId);
}

/** Registers agent authentication on the hub. */
export function registerAgentSessions(ctx: ServerContext): void {
  ctx.hub.addAuthenticator({
    matches: (frame) => 'agent_id' in frame,
    authenticate: (frame) => authenticate(ctx, frame),
    onOpen(conn) {
      const p = conn.principal;
      if (p?.kind !== 'agent') return;
      // Sharing connections live side by side; any other pair: the newer replaces the older.
      const shares = conn.negotiated['share'] !== undefined;
      for (const older of ctx.agentSockets.connections(p.agentId)) {
        if (older === conn || (shares && older.negotiated['share'] !== undefined)) continue;
        older.close(WS_CLOSE.REPLACED, 'replaced');
      }
      void ctx.store.agents.get(p.agentId).then((agent) => armTokenTimers(ctx, conn, agent, p.tokenId));
      ctx.delivery.onAgentConnected(p.agentId);
    },
    onClose(conn) {
      const p = conn.principal;
      if (p?.kind === 'agent') ctx.delivery.onAgentDisconnected(p.agentId, conn.id);
    },
  });
  ctx.hub.handle('ack', (frame, conn) => onAck(ctx, frame, conn));
  ctx.hub.handle(SCALE_FRAMES.drain, (_frame, conn) => onDrain(ctx, conn));
}
