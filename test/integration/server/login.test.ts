import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import {
  call,
  expectError,
  passwordLogin,
  refreshTokenOf,
  registerUser,
  requestCode,
  sessionOf,
  startTestServer,
  uniqueEmail,
} from '../../helpers/server-http.js';

const MIN = 60_000;
let server: ReferenceServer;

beforeAll(async () => {
  server = await startTestServer();
  server.control.setTurnstilePolicy({ default: 'pass', pass: [], fail: ['bad-token'] });
});
afterAll(() => server.close());

async function failTimes(email: string, n: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await passwordLogin(server, email, 'wrong password!')).status);
  return statuses;
}

describe('POST /auth/login (password)', () => {
  it('signs in with tokens and the refresh cookie', async () => {
    const session = await registerUser(server);
    const res = await passwordLogin(server, session.email, session.password, { deviceId: session.deviceId });
    expect(res.status, res.text).toBe(200);
    expect(res.data).toMatchObject({
      user_id: session.userId,
      device_id: session.deviceId,
      expires_in_seconds: 300,
    });
    expect(refreshTokenOf(res)).not.toBe(session.refreshToken);
  });

  it('answers a wrong password and an unknown address alike (401 UNAUTHORIZED)', async () => {
    const session = await registerUser(server);
    const wrong = expectError(
      await passwordLogin(server, session.email, 'nope nope nope'),
      401,
      'UNAUTHORIZED',
    );
    const unknown = expectError(
      await passwordLogin(server, uniqueEmail('ghost'), 'nope nope nope'),
      401,
      'UNAUTHORIZED',
    );
    expect(unknown).toEqual(wrong);
  });

  it('TURNSTILE_FAILED does not count as a failed password', async () => {
    const session = await registerUser(server);
    for (let i = 0; i < 6; i++) {
      const res = await call(server, 'POST', '/auth/login', {
        json: { email: session.email, account_password: 'wrong password!', turnstile_token: 'bad-token' },
      });
      expectError(res, 403, 'TURNSTILE_FAILED');
    }
    expect((await server.control.account(session.email))?.failedLogins).toBe(0);
  });
});

describe('account lock (5 failures → 15 minutes)', () => {
  it('the 5th wrong password locks: 423 ACCOUNT_LOCKED with retry_after in seconds', async () => {
    const session = await registerUser(server);
    expect(await failTimes(session.email, 4)).toEqual([401, 401, 401, 401]);
    const fifth = await passwordLogin(server, session.email, 'wrong password!');
    expect(expectError(fifth, 423, 'ACCOUNT_LOCKED').params).toEqual({ retry_after: 900 });
    expect(fifth.headers.get('retry-after')).toBe('900');
  });

  it('stays locked for 15 minutes, even for the right password, with a shrinking retry_after', async () => {
    const session = await registerUser(server);
    await failTimes(session.email, 5);
    server.advanceTime(5 * MIN);
    const during = await passwordLogin(server, session.email, session.password);
    expect(expectError(during, 423, 'ACCOUNT_LOCKED').params).toEqual({ retry_after: 600 });
    const wrongDuring = await passwordLogin(server, session.email, 'wrong password!');
    expect(expectError(wrongDuring, 423, 'ACCOUNT_LOCKED').params).toEqual({ retry_after: 600 });
    server.advanceTime(10 * MIN - 1_000);
    expect(
      expectError(await passwordLogin(server, session.email, session.password), 423, 'ACCOUNT_LOCKED').params,
    ).toEqual({
      retry_after: 1,
    });
    server.advanceTime(1_000);
    const after = await passwordLogin(server, session.email, session.password);
    expect(after.status, after.text).toBe(200);
  });

  it('wrong passwords during the lock do not extend it; after it the count starts again', async () => {
    const session = await registerUser(server);
    await failTimes(session.email, 5);
    expect(await failTimes(session.email, 3)).toEqual([423, 423, 423]);
    server.advanceTime(15 * MIN);
    expect(await failTimes(session.email, 4)).toEqual([401, 401, 401, 401]);
    expect(await failTimes(session.email, 1)).toEqual([423]);
    expect((await server.control.account(session.email))?.lockCount).toBe(2);
  });

  it('a success resets the count', async () => {
    const session = await registerUser(server);
    await failTimes(session.email, 4);
    expect((await passwordLogin(server, session.email, session.password)).status).toBe(200);
    expect(await failTimes(session.email, 4)).toEqual([401, 401, 401, 401]);
    expect((await server.control.account(session.email))?.lockCount).toBe(0);
  });

  it('logins racing on the fifth failure lock exactly once', async () => {
    const session = await registerUser(server);
    await failTimes(session.email, 4);
    const racing = await Promise.all(
      Array.from({ length: 6 }, () => passwordLogin(server, session.email, 'wrong password!')),
    );
    expect(racing.map((r) => r.status)).toEqual([423, 423, 423, 423, 423, 423]);
    expect(racing.map((r) => r.error?.params['retry_after'])).toEqual([900, 900, 900, 900, 900, 900]);
    const state = await server.control.account(session.email);
    expect(state?.lockCount).toBe(1);
    expect(state?.lockedUntilMs).toBe(server.clock.now() + 15 * MIN);
    server.advanceTime(15 * MIN);
    expect((await passwordLogin(server, session.email, session.password)).status).toBe(200);
  });

  it('a code login still works during a password lock', async () => {
    const session = await registerUser(server);
    await failTimes(session.email, 5);
    const code = await requestCode(server, session.email, 'login');
    const res = await call(server, 'POST', '/auth/login-code', { json: { email: session.email, code } });
    expect(res.status, res.text).toBe(200);
  });
});

describe('EMAIL_VERIFICATION_REQUIRED', () => {
  it('an unverified address cannot sign in with its password until a code proves it', async () => {
    const email = uniqueEmail('unverified');
    await server.control.createUser({ email, password: 'correct horse battery', emailVerified: false });
    expectError(
      await passwordLogin(server, email, 'correct horse battery'),
      403,
      'EMAIL_VERIFICATION_REQUIRED',
    );
    // A wrong password still gets the plain 401: the 403 is not an oracle for the address.
    expectError(await passwordLogin(server, email, 'wrong password!'), 401, 'UNAUTHORIZED');
    const code = await requestCode(server, email, 'login');
    expect((await call(server, 'POST', '/auth/login-code', { json: { email, code } })).status).toBe(200);
    expect((await passwordLogin(server, email, 'correct horse battery')).status).toBe(200);
  });
});

describe('POST /auth/login-code', () => {
  it('signs in with a code of scene login', async () => {
    const session = await registerUser(server);
    const code = await requestCode(server, session.email, 'login');
    const res = await call(server, 'POST', '/auth/login-code', {
      json: { email: session.email, code, device_id: 'tablet-1', device_name: 'Tablet' },
    });
    expect(sessionOf(res, session.email, '').deviceId).toBe('tablet-1');
  });

  it('refuses a code of another scene, a wrong code and a code for an unknown address', async () => {
    const session = await registerUser(server);
    const resetCode = await requestCode(server, session.email, 'reset');
    const res = await call(server, 'POST', '/auth/login-code', {
      json: { email: session.email, code: resetCode },
    });
    expect(expectError(res, 400, 'VALIDATION_ERROR').params).toMatchObject({
      field: 'code',
      reason: 'invalid',
    });
    const ghost = await call(server, 'POST', '/auth/login-code', {
      json: { email: uniqueEmail('ghost'), code: '123456' },
    });
    expect(expectError(ghost, 400, 'VALIDATION_ERROR').params).toMatchObject({
      field: 'code',
      reason: 'invalid',
    });
  });
});

describe('POST /auth/reset-password', () => {
  it('sets the new password, signs every device out, clears the lock and leaves the key backup untouched', async () => {
    const session = await registerUser(server);
    const backup = {
      backup_a: randomBytes(60).toString('base64'),
      argon2_salt: randomBytes(32).toString('base64'),
      public_key: randomBytes(32).toString('base64'),
      device_id: session.deviceId,
    };
    expect(
      (await call(server, 'POST', '/keys/backup', { token: session.accessToken, json: backup })).status,
    ).toBe(201);
    await failTimes(session.email, 5);

    const code = await requestCode(server, session.email, 'reset');
    const res = await call(server, 'POST', '/auth/reset-password', {
      json: { email: session.email, code, new_account_password: 'brand new password' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.data).toEqual({ password_reset: true, devices_signed_out: 1 });

    expectError(
      await call(server, 'GET', '/keys/backup', { token: session.accessToken }),
      401,
      'TOKEN_EXPIRED',
    );
    expectError(
      await call(server, 'POST', '/auth/refresh', { refreshToken: session.refreshToken }),
      401,
      'TOKEN_EXPIRED',
    );
    expectError(await passwordLogin(server, session.email, session.password), 401, 'UNAUTHORIZED');
    const fresh = sessionOf(
      await passwordLogin(server, session.email, 'brand new password'),
      session.email,
      '',
    );
    const read = await call(server, 'GET', '/keys/backup', { token: fresh.accessToken });
    expect(read.data).toMatchObject(backup);
  });

  it('validates the new password like registration does', async () => {
    const session = await registerUser(server);
    const code = await requestCode(server, session.email, 'reset');
    const res = await call(server, 'POST', '/auth/reset-password', {
      json: { email: session.email, code, new_account_password: 'short' },
    });
    expect(expectError(res, 400, 'VALIDATION_ERROR').params).toMatchObject({
      field: 'new_account_password',
      reason: 'too_short',
      min: 8,
    });
  });
});

describe('/auth/device/* (V2 placeholders)', () => {
  it.each(['/auth/device/code', '/auth/device/verify', '/auth/device/poll'])(
    '%s is not supported in V1',
    async (path) => {
      const res = await call(server, 'POST', path, { json: { anything: 1 } });
      expect(expectError(res, 404, 'NOT_FOUND').params).toEqual({ reason: 'not_supported_in_v1' });
      expect(res.error?.message).toMatch(/V2/);
    },
  );
});
