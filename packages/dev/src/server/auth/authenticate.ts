/**
 * Checking a user access token: signature and expiry (on the server's clock),
 * then that the device session it names is still alive. A token of a revoked
 * device stops working at once, even before its 300 s run out.
 *
 * @module
 */
import type { ServerContext } from '../context.js';
import { fail, type ServerFailure } from '../http/failure.js';
import type { ServerRequest, UserPrincipal } from '../http/types.js';

/** Outcome of {@link checkAccessToken}. */
export type AccessCheck =
  | { readonly ok: true; readonly principal: UserPrincipal }
  | { readonly ok: false; readonly code: 'UNAUTHORIZED' | 'TOKEN_EXPIRED' };

/**
 * Verifies `token`: bad signature or claims → UNAUTHORIZED; expired, or its
 * device session revoked → TOKEN_EXPIRED.
 */
export async function checkAccessToken(ctx: ServerContext, token: string): Promise<AccessCheck> {
  const check = await ctx.tokens.verify(token);
  if (!check.ok) return { ok: false, code: check.reason === 'expired' ? 'TOKEN_EXPIRED' : 'UNAUTHORIZED' };
  const { userId, deviceId, sessionId } = check.subject;
  const device = await ctx.store.devices.get(userId, deviceId, ctx.clock.now());
  if (device === undefined || device.sessionId !== sessionId) return { ok: false, code: 'TOKEN_EXPIRED' };
  return {
    ok: true,
    principal: { kind: 'user', userId, deviceId, sessionId, expiresAtMs: check.expiresAtMs },
  };
}

function failureFor(code: 'UNAUTHORIZED' | 'TOKEN_EXPIRED'): ServerFailure {
  return code === 'TOKEN_EXPIRED'
    ? fail('TOKEN_EXPIRED', 'The access token expired or was revoked. Refresh it and retry.')
    : fail('UNAUTHORIZED', 'A valid access token is required.');
}

/** Reads `Authorization: Bearer <token>`; undefined when absent or of another scheme. */
export function bearerToken(req: ServerRequest): string | undefined {
  const header = req.headers['authorization'];
  if (header === undefined) return undefined;
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return m?.[1];
}

/**
 * The principal of a request with a user access token.
 *
 * @throws {@link ServerFailure} UNAUTHORIZED (missing or invalid) or TOKEN_EXPIRED (expired or revoked).
 */
export async function authenticateUser(ctx: ServerContext, req: ServerRequest): Promise<UserPrincipal> {
  const token = bearerToken(req);
  if (token === undefined) throw failureFor('UNAUTHORIZED');
  if (token.startsWith('hsk_')) {
    throw fail('UNAUTHORIZED', 'This endpoint needs a user access token; agent tokens are not accepted.', {
      reason: 'user_token_required',
    });
  }
  const check = await checkAccessToken(ctx, token);
  if (!check.ok) throw failureFor(check.code);
  return check.principal;
}
