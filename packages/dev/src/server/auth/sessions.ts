/**
 * Device sessions: signing a device in (tokens + refresh cookie), rotating
 * the refresh token, and revoking a device.
 *
 * Model: one session per device. Signing in again on a known device keeps its
 * session and issues a new refresh token (the old one stops working).
 * Refresh tokens are 32 random bytes (base64url), stored only as SHA-256;
 * each use rotates them, and a rotated-out token coming back revokes the
 * device (refresh-token reuse detection).
 *
 * @module
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { LIMITS } from 'agent-messaging-sdk/protocol';
import type { ServerContext } from '../context.js';
import { refreshCookie } from '../http/cookies.js';
import { fail } from '../http/failure.js';
import { ok } from '../http/respond.js';
import type { ServerResponse } from '../http/types.js';
import type { DeviceInput } from './schemas.js';

/** A new refresh token and the hash the store keeps. */
export function newRefreshToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashRefreshToken(token) };
}

/** SHA-256 (base64url) of a refresh token. */
export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

async function deviceName(
  ctx: ServerContext,
  userId: string,
  deviceId: string,
  input: DeviceInput,
): Promise<string> {
  if (input.deviceName !== undefined) return input.deviceName;
  const existing = await ctx.store.devices.get(userId, deviceId, ctx.clock.now());
  return existing?.name ?? `Device ${deviceId.slice(0, 8)}`;
}

/** The body and cookie of a successful sign-in or refresh. */
export async function tokenResponse(
  ctx: ServerContext,
  grant: { userId: string; deviceId: string; sessionId: string; refreshToken: string },
  status = 200,
): Promise<ServerResponse> {
  const access = await ctx.tokens.sign(grant);
  const data = {
    user_id: grant.userId,
    device_id: grant.deviceId,
    access_token: access.token,
    token_type: 'Bearer',
    expires_in_seconds: access.expiresInSeconds,
  };
  return ok(data, status, { 'set-cookie': refreshCookie(grant.refreshToken) });
}

/**
 * Signs `userId` in on a device and answers with tokens and the refresh cookie.
 *
 * @throws {@link ServerFailure} DEVICE_LIMIT_EXCEEDED (a 6th device) or DEVICE_NAME_TAKEN.
 */
export async function signIn(
  ctx: ServerContext,
  userId: string,
  input: DeviceInput,
  status = 200,
): Promise<ServerResponse> {
  const deviceId = input.deviceId ?? randomUUID();
  const name = await deviceName(ctx, userId, deviceId, input);
  const refresh = newRefreshToken();
  const now = ctx.clock.now();
  const outcome = await ctx.store.devices.signIn({
    userId,
    deviceId,
    name,
    nowMs: now,
    maxDevices: LIMITS.DEVICES_PER_ACCOUNT,
    newSessionId: randomUUID(),
    refreshHash: refresh.hash,
    refreshExpiresAtMs: now + LIMITS.REFRESH_TOKEN_TTL_MS,
  });
  if (!outcome.ok) {
    throw outcome.reason === 'device_limit'
      ? fail(
          'DEVICE_LIMIT_EXCEEDED',
          `An account can have at most ${LIMITS.DEVICES_PER_ACCOUNT} devices: sign in again with the device_id of one of them, ` +
            'or remove one (GET /users/me/devices lists them, DELETE /users/me/devices/:id removes one).',
          {
            max: LIMITS.DEVICES_PER_ACCOUNT,
          },
        )
      : fail('DEVICE_NAME_TAKEN', 'Another device of this account already has that name.', {
          field: 'device_name',
        });
  }
  const { sessionId } = outcome.device;
  return tokenResponse(ctx, { userId, deviceId, sessionId, refreshToken: refresh.token }, status);
}

/** Revokes a device: its refresh token, its access tokens and its WebSockets, at once. */
export async function revokeDevice(ctx: ServerContext, userId: string, deviceId: string): Promise<boolean> {
  const removed = await ctx.store.devices.remove(userId, deviceId);
  ctx.hub.invalidateDevice(userId, deviceId);
  return removed !== undefined;
}

/** Revokes every device of an account (after a password reset). */
export async function revokeAllDevices(ctx: ServerContext, userId: string): Promise<number> {
  const removed = await ctx.store.devices.removeAll(userId);
  for (const d of removed) ctx.hub.invalidateDevice(userId, d.deviceId);
  return removed.length;
}
