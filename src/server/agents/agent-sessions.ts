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
 * | `key_id`/`signing_key_id` given and no live registered generation has them | `auth.error` `keys_mismatch` | 4001 |
 *
 * One open connection per agent: a newly authenticated one replaces the
 * older (close 4012 `replaced`). A connection on a token in its grace closes
 * when the grace ends (`auth.error` `token_revoked`, 4005).
 *
 * @module
 */
import type { ServerContext } from '../context.js';
import type { AgentPrincipal } from '../http/types.js';
import type { AuthOutcome, ClientFrame } from '../ws/hub.js';
import { WS_CLOSE } from '../ws/frames.js';
import { liveKeys } from './records.js';

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

async function authenticate(ctx: ServerContext, frame: ClientFrame): Promise<AuthOutcome> {
  const agentId = stringField(frame, 'agent_id', 256);
  const token = stringField(frame, 'token', MAX_CREDENTIAL_CHARS);
  if (agentId === undefined || token === undefined) return { ok: false, reason: 'invalid_frame' };
  const match = await ctx.agentTokens.check(token, agentId);
  const agent = match === undefined ? undefined : await ctx.store.agents.get(match.agentId);
  if (match === undefined || agent === undefined || match.agentId !== agentId) {
    return { ok: false, reason: 'invalid_token' };
  }
  if (agent.governance.level === 'L2') {
    return { ok: false, reason: 'agent_suspended', closeCode: WS_CLOSE.AGENT_SUSPENDED };
  }
  if (agent.governance.level === 'L3')
    return { ok: false, reason: 'agent_banned', closeCode: WS_CLOSE.AGENT_BANNED };
  if (ctx.delivery.getWebhook(agentId) !== undefined) {
    return { ok: false, reason: 'webhook_mode', closeCode: WS_CLOSE.WEBHOOK_MODE };
  }
  if (!keysMatch(frame, liveKeys(agent, ctx.clock.now()))) return { ok: false, reason: 'keys_mismatch' };
  const principal: AgentPrincipal = { kind: 'agent', agentId, tokenId: match.tokenId };
  return { ok: true, principal };
}

/** Registers agent authentication on the hub. */
export function registerAgentSessions(ctx: ServerContext): void {
  ctx.hub.addAuthenticator({
    matches: (frame) => 'agent_id' in frame,
    authenticate: (frame) => authenticate(ctx, frame),
    onOpen(conn) {
      const p = conn.principal;
      if (p?.kind !== 'agent') return;
      for (const older of ctx.agentSockets.connections(p.agentId)) {
        if (older !== conn) older.close(WS_CLOSE.REPLACED, 'replaced');
      }
      void ctx.store.agents.get(p.agentId).then((agent) => {
        const token = agent?.tokens.find((t) => t.tokenId === p.tokenId);
        if (token?.validUntilMs !== undefined) {
          ctx.agentSockets.armGraceEnd(
            conn,
            token.validUntilMs,
            ctx.clock.now(),
            ctx.options.authExpiringNoticeMs,
          );
        }
      });
      ctx.delivery.onAgentConnected(p.agentId);
    },
  });
}
