/**
 * Human users on the WebSocket hub.
 *
 * - First frame `{ type: 'auth', access_token }` (never the URL) → `auth.ok`,
 *   or `auth.error` (`invalid_token` / `token_expired`) and close 4001.
 * - `auth.expiring` `{ expires_in_seconds }` goes out `authExpiringNoticeMs`
 *   before the token expires; at expiry without a renewal the server sends
 *   `auth.error` `token_expired` and closes 4003.
 * - `{ type: 'auth.renew', access_token }` with a fresh token of the same user
 *   and device → `auth.ok` and new timers; a bad one → `auth.error` (the
 *   connection stays up on the old token until it expires).
 * - Revoking the device → `session.invalidated`, close 4004 (see the hub).
 * - `ack: true` in `auth` (and the server's `wsAcks` on) → `auth.ok` with
 *   `ack: { window, timeout_ms }`: acknowledged delivery from the inbox,
 *   catching up from the device's cursor first (see `user-deliveries.ts`).
 *
 * @module
 */
import { renewAgent } from '../agents/agent-sessions.js';
import { checkAccessToken } from '../auth/authenticate.js';
import type { ServerContext } from '../context.js';
import type { UserPrincipal } from '../http/types.js';
import type { HubConnection } from './connection.js';
import { authErrorFrame, WS_CLOSE } from './frames.js';
import type { ClientFrame } from './hub.js';

const MAX_TOKEN_CHARS = 8192;

function tokenOf(frame: ClientFrame): string | undefined {
  const token = frame['access_token'];
  return typeof token === 'string' && token.length > 0 && token.length <= MAX_TOKEN_CHARS ? token : undefined;
}

function scheduleExpiry(ctx: ServerContext, conn: HubConnection, principal: UserPrincipal): void {
  const left = principal.expiresAtMs - ctx.clock.now();
  const notice = ctx.options.authExpiringNoticeMs;
  conn.setTimer('auth_expiring', left - notice, () => {
    const seconds = Math.max(0, Math.round((principal.expiresAtMs - ctx.clock.now()) / 1000));
    conn.send({ type: 'auth.expiring', expires_in_seconds: seconds });
  });
  conn.setTimer('auth_expired', left, () => {
    conn.send(authErrorFrame('token_expired'));
    conn.close(WS_CLOSE.TOKEN_EXPIRED, 'token_expired');
  });
}

async function renew(ctx: ServerContext, frame: ClientFrame, conn: HubConnection): Promise<void> {
  const current = conn.principal;
  if (current?.kind !== 'user') return;
  const token = tokenOf(frame);
  const check = token === undefined ? undefined : await checkAccessToken(ctx, token);
  if (check === undefined || !check.ok) {
    conn.send(authErrorFrame(check?.code === 'TOKEN_EXPIRED' ? 'token_expired' : 'invalid_token'));
    return;
  }
  if (check.principal.userId !== current.userId || check.principal.deviceId !== current.deviceId) {
    conn.send(authErrorFrame('device_mismatch'));
    return;
  }
  conn.updatePrincipal(check.principal);
  conn.send({ type: 'auth.ok' });
  scheduleExpiry(ctx, conn, check.principal);
}

/** Registers user authentication and `auth.renew` on the hub. */
export function registerUserSessions(ctx: ServerContext): void {
  ctx.hub.addAuthenticator({
    matches: (frame) => 'access_token' in frame && !('agent_id' in frame),
    async authenticate(frame) {
      const token = tokenOf(frame);
      if (token === undefined) return { ok: false, reason: 'invalid_token' };
      const check = await checkAccessToken(ctx, token);
      if (!check.ok)
        return { ok: false, reason: check.code === 'TOKEN_EXPIRED' ? 'token_expired' : 'invalid_token' };
      if (frame['ack'] !== true || !ctx.options.wsAcks) return { ok: true, principal: check.principal };
      const { window, timeoutMs } = ctx.options.wsAck;
      return { ok: true, principal: check.principal, negotiated: { ack: { window, timeout_ms: timeoutMs } } };
    },
    onOpen(conn) {
      const p = conn.principal;
      if (p?.kind !== 'user') return;
      scheduleExpiry(ctx, conn, p);
      if (conn.negotiated['ack'] !== undefined) void ctx.userDeliveries.open(conn, p.userId, p.deviceId);
    },
    onClose(conn) {
      ctx.userDeliveries.close(conn);
    },
  });
  ctx.hub.handle('auth.renew', (frame, conn) =>
    conn.principal?.kind === 'agent' ? renewAgent(ctx, frame, conn) : renew(ctx, frame, conn),
  );
}
