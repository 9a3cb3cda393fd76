import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import {
  call,
  expectError,
  refreshTokenOf,
  registerUser,
  sessionOf,
  startTestServer,
  type Session,
} from '../../helpers/server-http.js';

const DAY = 86_400_000;
let server: ReferenceServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const devices = (session: Pick<Session, 'accessToken'>) =>
  call(server, 'GET', '/users/me/devices', { token: session.accessToken });
const refresh = (refreshToken: string) => call(server, 'POST', '/auth/refresh', { refreshToken });

describe('access tokens (300 s)', () => {
  it('work until 300 s have passed, then TOKEN_EXPIRED (401)', async () => {
    const session = await registerUser(server);
    server.advanceTime(299_000);
    expect((await devices(session)).status).toBe(200);
    server.advanceTime(1_000);
    expectError(await devices(session), 401, 'TOKEN_EXPIRED');
  });

  it('missing or invalid tokens are UNAUTHORIZED (401)', async () => {
    const session = await registerUser(server);
    expectError(await call(server, 'GET', '/users/me/devices'), 401, 'UNAUTHORIZED');
    expectError(await devices({ accessToken: 'not-a-jwt' }), 401, 'UNAUTHORIZED');
    const [h, p, s] = session.accessToken.split('.') as [string, string, string];
    const flipped = (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    expectError(await devices({ accessToken: `${h}.${p}.${flipped}` }), 401, 'UNAUTHORIZED');
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...payload, sub: 'someone-else' })).toString('base64url');
    expectError(await devices({ accessToken: `${h}.${forged}.${s}` }), 401, 'UNAUTHORIZED');
    const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    expectError(await devices({ accessToken: `${none}.${p}.` }), 401, 'UNAUTHORIZED');
    const basic = await call(server, 'GET', '/users/me/devices', {
      headers: { authorization: `Basic ${session.accessToken}` },
    });
    expectError(basic, 401, 'UNAUTHORIZED');
  });

  it('an expired token with a broken signature is UNAUTHORIZED, not TOKEN_EXPIRED', async () => {
    const session = await registerUser(server);
    server.advanceTime(301_000);
    const [h, p] = session.accessToken.split('.') as [string, string];
    expectError(await devices({ accessToken: `${h}.${p}.AAAA` }), 401, 'UNAUTHORIZED');
  });

  it('tokens of another server instance are refused', async () => {
    const other = await startTestServer();
    try {
      const foreign = await registerUser(other);
      expectError(await devices(foreign), 401, 'UNAUTHORIZED');
    } finally {
      await other.close();
    }
  });
});

describe('POST /auth/refresh', () => {
  it('returns a new access token and a new cookie; the old refresh token stops working', async () => {
    const session = await registerUser(server);
    server.advanceTime(301_000);
    const res = await refresh(session.refreshToken);
    expect(res.status, res.text).toBe(200);
    expect(res.data).toMatchObject({
      user_id: session.userId,
      device_id: session.deviceId,
      expires_in_seconds: 300,
    });
    expect(res.headers.get('set-cookie')).toMatch(
      /; HttpOnly; Secure; SameSite=Strict; Path=\/auth; Max-Age=2592000$/,
    );
    const next = refreshTokenOf(res);
    expect(next).not.toBe(session.refreshToken);
    expect((await devices({ accessToken: String(res.data['access_token']) })).status).toBe(200);
    expect((await refresh(next)).status).toBe(200);
  });

  it('reusing a rotated-out refresh token is TOKEN_EXPIRED and revokes the device session', async () => {
    const session = await registerUser(server);
    const rotated = await refresh(session.refreshToken);
    const current = sessionOf(rotated, session.email, session.password);
    const reuse = await refresh(session.refreshToken);
    expectError(reuse, 401, 'TOKEN_EXPIRED');
    expect(reuse.headers.get('set-cookie')).toMatch(/^refresh_token=; .*Max-Age=0$/);
    expectError(await refresh(current.refreshToken), 401, 'TOKEN_EXPIRED');
    expectError(await devices(current), 401, 'TOKEN_EXPIRED');
  });

  it('a refresh token expires after 30 days', async () => {
    const session = await registerUser(server);
    server.advanceTime(30 * DAY);
    expectError(await refresh(session.refreshToken), 401, 'TOKEN_EXPIRED');
  });

  it('each rotation starts a new 30 days', async () => {
    const session = await registerUser(server);
    server.advanceTime(29 * DAY);
    const second = refreshTokenOf(await refresh(session.refreshToken));
    server.advanceTime(29 * DAY);
    const third = await refresh(second);
    expect(third.status, third.text).toBe(200);
  });

  it('no cookie is UNAUTHORIZED; an unknown token is TOKEN_EXPIRED', async () => {
    expectError(await call(server, 'POST', '/auth/refresh'), 401, 'UNAUTHORIZED');
    expectError(await refresh('x'.repeat(43)), 401, 'TOKEN_EXPIRED');
  });

  it('takes the cookie among others', async () => {
    const session = await registerUser(server);
    const res = await call(server, 'POST', '/auth/refresh', {
      headers: { cookie: `theme=dark; refresh_token=${session.refreshToken}; lang=en` },
    });
    expect(res.status, res.text).toBe(200);
  });
});
