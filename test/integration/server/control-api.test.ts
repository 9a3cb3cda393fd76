import { afterEach, describe, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { call, expectError, passwordLogin, startTestServer, uniqueEmail } from '../../helpers/server-http.js';

const servers: ReferenceServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(options: Parameters<typeof startTestServer>[0] = {}): Promise<ReferenceServer> {
  const s = await startTestServer(options);
  servers.push(s);
  return s;
}

describe('control API over HTTP (dev mode)', () => {
  it('is 404 NOT_FOUND when dev mode is off', async () => {
    const s = await start({ dev: false });
    for (const path of ['/_control/clock', '/_control/emails?email=a@example.com', '/_control/turnstile']) {
      expectError(await call(s, 'GET', path), 404, 'NOT_FOUND');
    }
    expectError(await call(s, 'POST', '/_control/clock/advance', { json: { ms: 1 } }), 404, 'NOT_FOUND');
  });

  it('reads the codes "emailed" to an address, newest first', async () => {
    const s = await start();
    const email = uniqueEmail();
    await call(s, 'POST', '/auth/send-code', { json: { email, scene: 'register', turnstile_token: 't' } });
    s.advanceTime(1_000);
    await call(s, 'POST', '/auth/send-code', { json: { email, scene: 'register', turnstile_token: 't' } });
    const res = await call(
      s,
      'GET',
      `/_control/emails?email=${encodeURIComponent(email.toUpperCase())}&scene=register`,
    );
    expect(res.status).toBe(200);
    const list = (res.json as { data: { code: string; sent_at: string; scene: string; to: string }[] }).data;
    expect(list).toHaveLength(2);
    expect(list[0]!.code).toMatch(/^\d{6}$/);
    expect(list[0]!.code).toBe(s.control.latestCode(email));
    expect(Date.parse(list[0]!.sent_at)).toBeGreaterThan(Date.parse(list[1]!.sent_at));
    expect(list[0]).toMatchObject({ to: email, scene: 'register' });
    expectError(await call(s, 'GET', '/_control/emails?email=nope'), 400, 'VALIDATION_ERROR');
    expectError(await call(s, 'GET', `/_control/emails?email=${email}&scene=x`), 400, 'VALIDATION_ERROR');
  });

  it('chooses which Turnstile tokens pass', async () => {
    const s = await start();
    const send = (token: string) =>
      call(s, 'POST', '/auth/send-code', {
        json: { email: uniqueEmail(), scene: 'register', turnstile_token: token },
      });
    expect((await send('anything')).status).toBe(200);
    const put = await call(s, 'PUT', '/_control/turnstile', { json: { default: 'fail', pass: ['human'] } });
    expect(put.data).toEqual({ default: 'fail', pass: ['human'], fail: [] });
    expectError(await send('anything'), 403, 'TURNSTILE_FAILED');
    expect((await send('human')).status).toBe(200);
    expect((await call(s, 'GET', '/_control/turnstile')).data).toEqual({
      default: 'fail',
      pass: ['human'],
      fail: [],
    });
  });

  it('moves virtual time', async () => {
    const s = await start();
    const before = (await call(s, 'GET', '/_control/clock')).data;
    expect(before['virtual']).toBe(true);
    const after = await call(s, 'POST', '/_control/clock/advance', { json: { ms: 900_000 } });
    expect(after.data['now_ms']).toBe(Number(before['now_ms']) + 900_000);
    expect(s.clock.now()).toBe(after.data['now_ms']);
    expectError(
      await call(s, 'POST', '/_control/clock/advance', { json: { ms: -1 } }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('refuses to move a real clock', async () => {
    const s = await start({ virtualTime: false });
    const res = await call(s, 'POST', '/_control/clock/advance', { json: { ms: 1 } });
    expect(expectError(res, 400, 'VALIDATION_ERROR').params).toMatchObject({ reason: 'not_available' });
    expect(() => s.advanceTime(1)).toThrow(/virtual/);
  });

  it('creates accounts and shows their lock state', async () => {
    const s = await start();
    const email = uniqueEmail();
    const created = await call(s, 'POST', '/_control/users', {
      json: { email, account_password: 'password123' },
    });
    expect(created.status).toBe(201);
    for (let i = 0; i < 5; i++) await passwordLogin(s, email, 'wrong one!');
    const state = await call(s, 'GET', `/_control/users?email=${encodeURIComponent(email)}`);
    expect(state.data).toMatchObject({
      user_id: created.data['user_id'],
      email_verified: true,
      failed_logins: 0,
      lock_count: 1,
      locked_until: new Date(s.clock.now() + 900_000).toISOString(),
      device_count: 0,
      has_key_backup: false,
    });
    expectError(await call(s, 'GET', '/_control/users?email=ghost@example.com'), 404, 'USER_NOT_FOUND');
    expectError(
      await call(s, 'POST', '/_control/users', { json: { email, account_password: 'x' } }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('reports the mailbox as unavailable when a custom mailer is set', async () => {
    const sent: string[] = [];
    const s = await start({ mailer: (m) => void sent.push(m.to) });
    const email = uniqueEmail();
    await call(s, 'POST', '/auth/send-code', { json: { email, scene: 'register', turnstile_token: 't' } });
    expect(sent).toEqual([email]);
    const res = await call(s, 'GET', `/_control/emails?email=${email}`);
    expect(expectError(res, 400, 'VALIDATION_ERROR').params).toMatchObject({
      reason: 'not_available',
      option: 'mailer',
    });
  });
});

describe('production password hashing (the slow default)', () => {
  it('registers and signs in with the default scrypt cost', async () => {
    const s = await startReferenceServer({ virtualTime: true });
    servers.push(s);
    const email = uniqueEmail();
    await s.control.createUser({ email, password: 'production grade' });
    expect((await passwordLogin(s, email, 'production grade')).status).toBe(200);
    expectError(await passwordLogin(s, email, 'wrong password'), 401, 'UNAUTHORIZED');
  });
});
