import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { call, registerUser, sessionOf, startTestServer } from '../../helpers/server-http.js';
import { WsProbe } from '../../helpers/server-ws.js';

let server: ReferenceServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

function upgradeStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('open', () => reject(new Error('upgrade unexpectedly accepted')));
    ws.on('error', () => {});
  });
}

describe('user WebSocket: first-frame authentication', () => {
  it('auth with an access token in the first frame → auth.ok', async () => {
    const session = await registerUser(server);
    const probe = await WsProbe.open(server.wsUrl);
    probe.send({ type: 'auth', access_token: session.accessToken });
    expect(await probe.next()).toEqual({ type: 'auth.ok' });
    probe.close();
  });

  it('a bad token → auth.error invalid_token, then close 4001', async () => {
    const probe = await WsProbe.open(server.wsUrl);
    probe.send({ type: 'auth', access_token: 'garbage' });
    expect(await probe.next()).toEqual({ type: 'auth.error', reason: 'invalid_token' });
    expect((await probe.waitClosed()).code).toBe(4001);
  });

  it('an expired token → auth.error token_expired', async () => {
    const session = await registerUser(server);
    server.advanceTime(300_000);
    const probe = await WsProbe.open(server.wsUrl);
    probe.send({ type: 'auth', access_token: session.accessToken });
    expect(await probe.next()).toEqual({ type: 'auth.error', reason: 'token_expired' });
    expect((await probe.waitClosed()).code).toBe(4001);
  });

  it.each([
    ['not json'],
    [JSON.stringify({ type: 'ping' })],
    [JSON.stringify([1, 2])],
    [JSON.stringify({ type: 'auth' })],
  ])('a first frame that is not an auth frame (%s) → auth.error invalid_frame, close 4001', async (text) => {
    const probe = await WsProbe.open(server.wsUrl);
    probe.send(text);
    expect(await probe.next()).toEqual({ type: 'auth.error', reason: 'invalid_frame' });
    expect((await probe.waitClosed()).code).toBe(4001);
  });

  it('no auth frame within 5 s (virtual) → auth.error auth_timeout, close 4002', async () => {
    const probe = await WsProbe.open(server.wsUrl);
    await probe.settle();
    server.advanceTime(4_999);
    await probe.settle();
    expect(probe.isOpen).toBe(true);
    server.advanceTime(1);
    expect(await probe.next()).toEqual({ type: 'auth.error', reason: 'auth_timeout' });
    expect((await probe.waitClosed()).code).toBe(4002);
  });

  it('refuses tokens in the URL and unknown paths before the upgrade', async () => {
    const session = await registerUser(server);
    expect(await upgradeStatus(`${server.wsUrl}?access_token=${session.accessToken}`)).toBe(400);
    expect(await upgradeStatus(`${server.wsUrl}?token=x`)).toBe(400);
    expect(await upgradeStatus(server.wsUrl.replace(/\/ws$/, '/socket'))).toBe(404);
  });

  it('binary frames close the connection with 1003', async () => {
    const probe = await WsProbe.open(server.wsUrl);
    probe.send(new Uint8Array([1, 2, 3]));
    expect((await probe.waitClosed()).code).toBe(1003);
  });
});

describe('user WebSocket: expiry and renewal', () => {
  it('auth.expiring 60 s before expiry; without auth.renew the socket closes at expiry (4003)', async () => {
    const session = await registerUser(server);
    const probe = await WsProbe.authenticated(server.wsUrl, session.accessToken);
    server.advanceTime(239_000);
    await probe.settle();
    expect(probe.frames).toEqual([{ type: 'auth.ok' }]);
    server.advanceTime(1_000);
    expect(await probe.next()).toEqual({ type: 'auth.expiring', expires_in_seconds: 60 });
    server.advanceTime(60_000);
    expect(await probe.next()).toEqual({ type: 'auth.error', reason: 'token_expired' });
    expect((await probe.waitClosed()).code).toBe(4003);
  });

  it('auth.renew with a fresh token keeps the socket open past the first expiry', async () => {
    const session = await registerUser(server);
    const probe = await WsProbe.authenticated(server.wsUrl, session.accessToken);
    server.advanceTime(240_000);
    expect((await probe.next()).type).toBe('auth.expiring');
    const refreshed = await call(server, 'POST', '/auth/refresh', { refreshToken: session.refreshToken });
    const fresh = sessionOf(refreshed, session.email, session.password);
    probe.send({ type: 'auth.renew', access_token: fresh.accessToken });
    expect(await probe.next()).toEqual({ type: 'auth.ok' });
    server.advanceTime(100_000);
    await probe.settle();
    expect(probe.isOpen).toBe(true);
    server.advanceTime(140_000);
    expect(await probe.next()).toEqual({ type: 'auth.expiring', expires_in_seconds: 60 });
    probe.close();
  });

  it('a bad auth.renew is answered with auth.error and leaves the connection on its old token', async () => {
    const alice = await registerUser(server);
    const bob = await registerUser(server);
    const probe = await WsProbe.authenticated(server.wsUrl, alice.accessToken);
    probe.send({ type: 'auth.renew', access_token: 'garbage' });
    expect(await probe.next()).toEqual({ type: 'auth.error', reason: 'invalid_token' });
    probe.send({ type: 'auth.renew', access_token: bob.accessToken });
    expect(await probe.next()).toEqual({ type: 'auth.error', reason: 'device_mismatch' });
    probe.send({ type: 'auth.renew' });
    expect(await probe.next()).toEqual({ type: 'auth.error', reason: 'invalid_token' });
    expect(probe.isOpen).toBe(true);
    server.advanceTime(300_000);
    expect((await probe.waitClosed()).code).toBe(4003);
  });

  it('unknown frame types after auth get an error frame; the socket stays open', async () => {
    const session = await registerUser(server);
    const probe = await WsProbe.authenticated(server.wsUrl, session.accessToken);
    probe.send({ type: 'does.not.exist' });
    const f = await probe.next();
    expect(f).toMatchObject({
      type: 'error',
      error: { code: 'VALIDATION_ERROR', params: { reason: 'unknown_frame_type' } },
    });
    probe.send('{');
    expect(await probe.next()).toMatchObject({
      type: 'error',
      error: { params: { reason: 'invalid_frame' } },
    });
    expect(probe.isOpen).toBe(true);
    probe.close();
  });

  it('server close() closes open sockets with 1001', async () => {
    const own = await startTestServer();
    const session = await registerUser(own);
    const probe = await WsProbe.authenticated(own.wsUrl, session.accessToken);
    await own.close();
    expect((await probe.waitClosed()).code).toBe(1001);
  });
});
