import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import {
  call,
  expectError,
  passwordLogin,
  registerUser,
  sessionOf,
  startTestServer,
} from '../../helpers/server-http.js';
import { WsProbe } from '../../helpers/server-ws.js';

let server: ReferenceServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('devices', () => {
  it('lists the devices of the account, marking the calling one', async () => {
    const first = await registerUser(server, { deviceId: 'dev-a', deviceName: 'Laptop' });
    const second = sessionOf(
      await passwordLogin(server, first.email, first.password, { deviceId: 'dev-b', deviceName: 'Phone' }),
      first.email,
      first.password,
    );
    const res = await call(server, 'GET', '/users/me/devices', { token: second.accessToken });
    expect(res.json).toEqual({
      data: [
        expect.objectContaining({
          device_id: 'dev-a',
          name: 'Laptop',
          user_id: first.userId,
          current: false,
        }),
        expect.objectContaining({ device_id: 'dev-b', name: 'Phone', user_id: first.userId, current: true }),
      ],
    });
  });

  it('DEVICE_LIMIT_EXCEEDED (400) for a 6th device; a known device can still sign in', async () => {
    const s = await registerUser(server, { deviceId: 'd1', deviceName: 'one' });
    for (const n of [2, 3, 4, 5]) {
      expect(
        (await passwordLogin(server, s.email, s.password, { deviceId: `d${n}`, deviceName: `n${n}` })).status,
      ).toBe(200);
    }
    const sixth = await passwordLogin(server, s.email, s.password, { deviceId: 'd6', deviceName: 'six' });
    const refused = expectError(sixth, 400, 'DEVICE_LIMIT_EXCEEDED');
    expect(refused.params).toMatchObject({ max: 5 });
    // The message says how to get out: reuse a device id, or remove a device.
    expect(refused.message).toContain('device_id of one of them');
    expect(refused.message).toContain('DELETE /users/me/devices/:id');
    expect((await passwordLogin(server, s.email, s.password, { deviceId: 'd3' })).status).toBe(200);
  });

  it('DEVICE_NAME_TAKEN (409) when another device has the name; the same device may keep it', async () => {
    const s = await registerUser(server, { deviceId: 'laptop-hw', deviceName: 'Laptop' });
    const clash = await passwordLogin(server, s.email, s.password, {
      deviceId: 'other-hw',
      deviceName: 'Laptop',
    });
    expectError(clash, 409, 'DEVICE_NAME_TAKEN');
    const again = await passwordLogin(server, s.email, s.password, {
      deviceId: 'laptop-hw',
      deviceName: 'Laptop',
    });
    expect(again.status).toBe(200);
  });

  it('signing in again on a known device keeps its session and rotates its refresh token', async () => {
    const s = await registerUser(server, { deviceId: 'same-hw' });
    const again = sessionOf(
      await passwordLogin(server, s.email, s.password, { deviceId: 'same-hw' }),
      s.email,
      s.password,
    );
    expect((await call(server, 'GET', '/users/me/devices', { token: s.accessToken })).status).toBe(200);
    expectError(
      await call(server, 'POST', '/auth/refresh', { refreshToken: s.refreshToken }),
      401,
      'TOKEN_EXPIRED',
    );
    // Reusing the replaced token revoked the device, as with any rotated-out token.
    expectError(
      await call(server, 'POST', '/auth/refresh', { refreshToken: again.refreshToken }),
      401,
      'TOKEN_EXPIRED',
    );
  });
});

describe('DELETE /users/me/devices/:device_id (device session valid → revoked)', () => {
  it("revokes the device's refresh token, its access tokens and its WebSockets at once", async () => {
    const laptop = await registerUser(server, { deviceId: 'laptop', deviceName: 'Laptop' });
    const phone = sessionOf(
      await passwordLogin(server, laptop.email, laptop.password, { deviceId: 'phone', deviceName: 'Phone' }),
      laptop.email,
      laptop.password,
    );
    const phoneSocket = await WsProbe.authenticated(server.wsUrl, phone.accessToken);
    const laptopSocket = await WsProbe.authenticated(server.wsUrl, laptop.accessToken);

    const del = await call(server, 'DELETE', '/users/me/devices/phone', { token: laptop.accessToken });
    expect(del.status, del.text).toBe(200);
    expect(del.data).toEqual({ device_id: 'phone', revoked: true });

    expect(await phoneSocket.next()).toEqual({ type: 'session.invalidated', device_id: 'phone' });
    expect(await phoneSocket.waitClosed()).toEqual({ code: 4004, reason: 'session_invalidated' });
    expectError(
      await call(server, 'GET', '/users/me/devices', { token: phone.accessToken }),
      401,
      'TOKEN_EXPIRED',
    );
    expectError(
      await call(server, 'POST', '/auth/refresh', { refreshToken: phone.refreshToken }),
      401,
      'TOKEN_EXPIRED',
    );

    await laptopSocket.settle();
    expect(laptopSocket.isOpen).toBe(true);
    expect(laptopSocket.frames).toEqual([{ type: 'auth.ok' }]);
    const list = await call(server, 'GET', '/users/me/devices', { token: laptop.accessToken });
    expect((list.json as { data: unknown[] }).data).toHaveLength(1);
    laptopSocket.close();
  });

  it('frees the slot and the name', async () => {
    const s = await registerUser(server, { deviceId: 'x1', deviceName: 'Name' });
    for (const n of [2, 3, 4, 5])
      await passwordLogin(server, s.email, s.password, { deviceId: `x${n}`, deviceName: `N${n}` });
    await call(server, 'DELETE', '/users/me/devices/x1', { token: (await loginAs(s, 'x2')).accessToken });
    const res = await passwordLogin(server, s.email, s.password, { deviceId: 'x6', deviceName: 'Name' });
    expect(res.status, res.text).toBe(200);
  });

  it('deleting the calling device signs it out; unknown devices are NOT_FOUND', async () => {
    const s = await registerUser(server, { deviceId: 'self' });
    expectError(
      await call(server, 'DELETE', '/users/me/devices/nope', { token: s.accessToken }),
      404,
      'NOT_FOUND',
    );
    expect((await call(server, 'DELETE', '/users/me/devices/self', { token: s.accessToken })).status).toBe(
      200,
    );
    expectError(
      await call(server, 'GET', '/users/me/devices', { token: s.accessToken }),
      401,
      'TOKEN_EXPIRED',
    );
  });

  it("cannot touch another account's device", async () => {
    const alice = await registerUser(server, { deviceId: 'shared-id' });
    const bob = await registerUser(server, { deviceId: 'bob-device' });
    expectError(
      await call(server, 'DELETE', '/users/me/devices/shared-id', { token: bob.accessToken }),
      404,
      'NOT_FOUND',
    );
    expect((await call(server, 'GET', '/users/me/devices', { token: alice.accessToken })).status).toBe(200);
  });
});

async function loginAs(s: { email: string; password: string }, deviceId: string) {
  return sessionOf(await passwordLogin(server, s.email, s.password, { deviceId }), s.email, s.password);
}
