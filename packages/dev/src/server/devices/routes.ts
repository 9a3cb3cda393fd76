/**
 * `GET /users/me/devices` and `DELETE /users/me/devices/:device_id`.
 *
 * The list is `data: [{ device_id, name, user_id, created_at, last_seen_at, current }]`,
 * oldest first. Deleting a device revokes its refresh token, every access
 * token derived from it and its WebSockets (`session.invalidated`) at once;
 * deleting the calling device signs it out.
 *
 * @module
 */
import { revokeDevice } from '../auth/sessions.js';
import { fail } from '../http/failure.js';
import { defineRoute, type Route } from '../http/router.js';
import { ok } from '../http/respond.js';

const iso = (ms: number): string => new Date(ms).toISOString();

const list = defineRoute({
  method: 'GET',
  path: '/users/me/devices',
  auth: 'user',
  async handler({ principal, ctx }) {
    const devices = await ctx.store.devices.list(principal.userId, ctx.clock.now());
    return ok(
      devices.map((d) => ({
        device_id: d.deviceId,
        name: d.name,
        user_id: d.userId,
        created_at: iso(d.createdAtMs),
        last_seen_at: iso(d.lastSeenAtMs),
        current: d.deviceId === principal.deviceId,
      })),
    );
  },
});

const remove = defineRoute({
  method: 'DELETE',
  path: '/users/me/devices/:device_id',
  auth: 'user',
  async handler({ params, principal, ctx }) {
    const deviceId = params['device_id'] ?? '';
    const removed = await revokeDevice(ctx, principal.userId, deviceId);
    if (!removed) throw fail('NOT_FOUND', 'This account has no such device.', { field: 'device_id' });
    return ok({ device_id: deviceId, revoked: true });
  },
});

/** Routes of device management. */
export const deviceRoutes: readonly Route[] = [list, remove];
