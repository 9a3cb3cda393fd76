/**
 * `POST /auth/refresh` (cookie `refresh_token`): rotates the refresh token and
 * issues a new access token. A missing cookie is 401 UNAUTHORIZED; an
 * expired, revoked, rotated-out or unknown one is 401 TOKEN_EXPIRED and the
 * cookie is cleared. Reusing a rotated-out token also revokes its device.
 *
 * Also the V2 placeholders `/auth/device/{code,verify,poll}`: 404 NOT_FOUND
 * with `params.reason = 'not_supported_in_v1'`.
 *
 * @module
 */
import { LIMITS } from 'agent-messaging-sdk/protocol';
import { clearedRefreshCookie, readCookie, REFRESH_COOKIE } from '../http/cookies.js';
import { fail, ServerFailure } from '../http/failure.js';
import { defineRoute, type Route } from '../http/router.js';
import { hashRefreshToken, newRefreshToken, tokenResponse } from './sessions.js';

const expired = (): ServerFailure =>
  new ServerFailure({
    code: 'TOKEN_EXPIRED',
    message: 'The refresh token expired or was revoked. Sign in again.',
    headers: { 'set-cookie': clearedRefreshCookie() },
  });

const refresh = defineRoute({
  method: 'POST',
  path: '/auth/refresh',
  auth: 'none',
  async handler({ req, ctx }) {
    const token = readCookie(req.headers['cookie'], REFRESH_COOKIE);
    if (token === undefined || token.length === 0) {
      throw fail('UNAUTHORIZED', 'The refresh_token cookie is missing.');
    }
    const next = newRefreshToken();
    const now = ctx.clock.now();
    const rotation = await ctx.store.devices.rotateRefresh(
      hashRefreshToken(token),
      next.hash,
      now + LIMITS.REFRESH_TOKEN_TTL_MS,
      now,
    );
    if (!rotation.ok) {
      if (rotation.reason === 'reused' && rotation.revoked !== undefined) {
        ctx.hub.invalidateDevice(rotation.revoked.userId, rotation.revoked.deviceId);
        ctx.logger.warn('refresh token reuse detected; the device session was revoked');
      }
      throw expired();
    }
    const { userId, deviceId, sessionId } = rotation.device;
    return tokenResponse(ctx, { userId, deviceId, sessionId, refreshToken: next.token });
  },
});

const notInV1 = (path: string): Route =>
  defineRoute({
    method: 'POST',
    path,
    auth: 'none',
    ignoreBody: true,
    handler() {
      throw fail('NOT_FOUND', 'Device-code login is reserved for V2 and is not supported in V1.', {
        reason: 'not_supported_in_v1',
      });
    },
  });

/** Routes of token refresh and the V2 device-flow placeholders. */
export const refreshRoutes: readonly Route[] = [
  refresh,
  notInV1('/auth/device/code'),
  notInV1('/auth/device/verify'),
  notInV1('/auth/device/poll'),
];
