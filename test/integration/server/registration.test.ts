import { randomBytes } from 'node:crypto';
import { generateKeys } from '../../../packages/sdk/src/crypto/keys.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import {
  call,
  expectError,
  registerUser,
  requestCode,
  startTestServer,
  uniqueEmail,
  type ApiResponse,
} from '../../helpers/server-http.js';

let server: ReferenceServer;

beforeAll(async () => {
  server = await startWithPolicy();
});
afterAll(() => server.close());

async function startWithPolicy(): Promise<ReferenceServer> {
  const s = await startTestServer();
  s.control.setTurnstilePolicy({ default: 'pass', pass: [], fail: ['bad-token'] });
  return s;
}

const b64 = (n: number): string => randomBytes(n).toString('base64');

function registerBody(email: string, code: string, overrides: Record<string, unknown> = {}) {
  return {
    email,
    code,
    account_password: 'long enough password',
    display_name: 'Ada',
    device_locale: 'en-GB',
    turnstile_token: 'ok',
    ...overrides,
  };
}

const register = (body: unknown): Promise<ApiResponse> =>
  call(server, 'POST', '/auth/register', { json: body });

describe('POST /auth/send-code', () => {
  it('returns expires_in_seconds and emails a 6-digit code', async () => {
    const email = uniqueEmail();
    const res = await call(server, 'POST', '/auth/send-code', {
      json: { email, scene: 'register', turnstile_token: 'x' },
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { expires_in_seconds: 600 } });
    expect(server.control.latestCode(email, 'register')).toMatch(/^\d{6}$/);
  });

  it('TURNSTILE_FAILED (403) when the human check fails; no code is sent', async () => {
    const email = uniqueEmail();
    const res = await call(server, 'POST', '/auth/send-code', {
      json: { email, scene: 'register', turnstile_token: 'bad-token' },
    });
    expectError(res, 403, 'TURNSTILE_FAILED');
    expect(server.control.emails(email)).toHaveLength(0);
  });

  it('answers the same for an unknown address in scenes login and reset, without sending anything', async () => {
    for (const scene of ['login', 'reset'] as const) {
      const email = uniqueEmail('ghost');
      const res = await call(server, 'POST', '/auth/send-code', {
        json: { email, scene, turnstile_token: 'x' },
      });
      expect(res.json).toEqual({ data: { expires_in_seconds: 600 } });
      expect(server.control.emails(email)).toHaveLength(0);
    }
  });

  it('rejects an unknown scene', async () => {
    const res = await call(server, 'POST', '/auth/send-code', {
      json: { email: uniqueEmail(), scene: 'signup', turnstile_token: 'x' },
    });
    expect(expectError(res, 400, 'VALIDATION_ERROR').params).toMatchObject({
      field: 'scene',
      reason: 'invalid_value',
    });
  });
});

describe('POST /auth/register', () => {
  it('creates the account, returns user_id, a JWT and expires_in_seconds, and sets the exact refresh cookie', async () => {
    const email = uniqueEmail();
    const res = await register(registerBody(email, await requestCode(server, email, 'register')));
    expect(res.status).toBe(201);
    expect(res.data).toMatchObject({
      user_id: expect.any(String),
      expires_in_seconds: 300,
      token_type: 'Bearer',
    });
    expect(String(res.data['access_token']).split('.')).toHaveLength(3);
    expect(res.headers.get('set-cookie')).toMatch(
      /^refresh_token=[A-Za-z0-9_-]{43}; HttpOnly; Secure; SameSite=Strict; Path=\/auth; Max-Age=2592000$/,
    );
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('signs the access token with HS256 and binds it to one user and one device (documented claims)', async () => {
    const session = await registerUser(server, { deviceId: 'hw-1234', deviceName: 'Laptop' });
    const [header, payload] = session.accessToken
      .split('.')
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(payload).toMatchObject({
      iss: 'ams-reference-server',
      aud: 'ams',
      sub: session.userId,
      did: 'hw-1234',
      sid: expect.any(String),
      jti: expect.any(String),
    });
    expect(payload.exp - payload.iat).toBe(300);
    expect(payload.iat * 1000).toBe(Math.floor(server.clock.now() / 1000) * 1000);
  });

  it.each([
    ['account_password', 'seven77', { reason: 'too_short', min: 8, max: 1024 }],
    ['display_name', 'A', { reason: 'too_short', min: 2, max: 24 }],
    ['display_name', 'x'.repeat(25), { reason: 'too_long', min: 2, max: 24 }],
    ['display_name', '👨‍👩‍👧‍👦'.repeat(25), { reason: 'too_long', min: 2, max: 24 }],
    ['display_name', 'Ada\nLovelace', { reason: 'invalid_characters' }],
    ['email', 'not-an-email', { reason: 'invalid_format' }],
    ['code', '12345', { reason: 'invalid_format' }],
    ['device_locale', 'not a locale!', { reason: 'invalid' }],
  ])('VALIDATION_ERROR names %s and its bounds', async (field, value, params) => {
    const email = uniqueEmail();
    const res = await register(registerBody(email, '123456', { [field]: value }));
    expect(expectError(res, 400, 'VALIDATION_ERROR').params).toMatchObject({ field, ...params });
  });

  it('counts display_name in user-perceived characters (graphemes)', async () => {
    // 24 family emoji are 264 UTF-16 code units but 24 characters to a reader.
    const family = '👨‍👩‍👧‍👦'.repeat(24);
    const email = uniqueEmail();
    const ok = await register(
      registerBody(email, await requestCode(server, email, 'register'), { display_name: family }),
    );
    expect(ok.status, ok.text).toBe(201);
    // "é" written as e + combining accent, twice: 4 code units, 2 characters.
    const email2 = uniqueEmail();
    const ok2 = await register(
      registerBody(email2, await requestCode(server, email2, 'register'), { display_name: 'e\u0301e\u0301' }),
    );
    expect(ok2.status, ok2.text).toBe(201);
  });

  it('checks the code: wrong, from another scene, used twice', async () => {
    const email = uniqueEmail();
    const code = await requestCode(server, email, 'register');
    const wrong = code === '000000' ? '000001' : '000000';
    expect(
      expectError(await register(registerBody(email, wrong)), 400, 'VALIDATION_ERROR').params,
    ).toMatchObject({
      field: 'code',
      reason: 'invalid',
    });
    expect((await register(registerBody(email, code))).status).toBe(201);
    const again = await register(registerBody(email, code));
    expect(expectError(again, 400, 'VALIDATION_ERROR').params).toMatchObject({
      field: 'code',
      reason: 'invalid',
    });
  });

  it('burns a code after 5 wrong attempts', async () => {
    const email = uniqueEmail();
    const code = await requestCode(server, email, 'register');
    const wrong = code === '999999' ? '999998' : '999999';
    const reasons: unknown[] = [];
    for (let i = 0; i < 5; i++)
      reasons.push((await register(registerBody(email, wrong))).error?.params['reason']);
    expect(reasons).toEqual(['invalid', 'invalid', 'invalid', 'invalid', 'too_many_attempts']);
    const right = await register(registerBody(email, code));
    expect(expectError(right, 400, 'VALIDATION_ERROR').params).toMatchObject({
      field: 'code',
      reason: 'invalid',
    });
  });

  it('a code expires after 10 minutes of (virtual) time', async () => {
    const email = uniqueEmail();
    const code = await requestCode(server, email, 'register');
    server.advanceTime(600_000);
    const res = await register(registerBody(email, code));
    expect(expectError(res, 400, 'VALIDATION_ERROR').params).toMatchObject({
      field: 'code',
      reason: 'expired',
    });
  });

  it('a new code replaces the previous one', async () => {
    const email = uniqueEmail();
    const first = await requestCode(server, email, 'register');
    let second = await requestCode(server, email, 'register');
    while (second === first) second = await requestCode(server, email, 'register');
    expect(
      expectError(await register(registerBody(email, first)), 400, 'VALIDATION_ERROR').params['field'],
    ).toBe('code');
    expect((await register(registerBody(email, second))).status).toBe(201);
  });

  it('TURNSTILE_FAILED without using up the code', async () => {
    const email = uniqueEmail();
    const code = await requestCode(server, email, 'register');
    expectError(
      await register(registerBody(email, code, { turnstile_token: 'bad-token' })),
      403,
      'TURNSTILE_FAILED',
    );
    expect((await register(registerBody(email, code))).status).toBe(201);
  });

  it('refuses an address that already has an account (after the code proves the mailbox)', async () => {
    const session = await registerUser(server);
    const code = await requestCode(server, session.email, 'register');
    const res = await register(registerBody(session.email, code));
    expect(expectError(res, 400, 'VALIDATION_ERROR').params).toMatchObject({
      field: 'email',
      reason: 'already_registered',
    });
  });

  it('treats addresses case-insensitively', async () => {
    const email = uniqueEmail();
    const code = await requestCode(server, email, 'register');
    const res = await register(registerBody(`  ${email.toUpperCase()} `, code));
    expect(res.status, res.text).toBe(201);
  });
});

describe('POST /keys/backup and GET /keys/backup', () => {
  const minimal = (deviceId: string) => ({
    backup_a: b64(60),
    argon2_salt: b64(32),
    public_key: b64(32),
    device_id: deviceId,
  });
  const full = (deviceId: string) => ({
    ...minimal(deviceId),
    backup_b: b64(60),
    argon2_params: { m: 65_536, t: 3, p: 4 },
    signing_public_key: Buffer.from(generateKeys().signing.publicKey).toString('base64'),
  });

  it('KEY_BACKUP_NOT_FOUND before an upload; the backup reads back after one (both forms)', async () => {
    const session = await registerUser(server);
    expectError(
      await call(server, 'GET', '/keys/backup', { token: session.accessToken }),
      404,
      'KEY_BACKUP_NOT_FOUND',
    );
    const first = minimal(session.deviceId);
    const up = await call(server, 'POST', '/keys/backup', { token: session.accessToken, json: first });
    expect(up.status, up.text).toBe(201);
    expect(up.data).toMatchObject({ form: 'minimal', device_id: session.deviceId });
    const read = await call(server, 'GET', '/keys/backup', { token: session.accessToken });
    expect(read.data).toEqual({ ...first, uploaded_at: expect.any(String) });
    const second = full(session.deviceId);
    const replaced = await call(server, 'POST', '/keys/backup', { token: session.accessToken, json: second });
    expect(replaced.status).toBe(200);
    expect((await call(server, 'GET', '/keys/backup', { token: session.accessToken })).data).toMatchObject(
      second,
    );
  });

  it.each([
    ['argon2_salt', { argon2_salt: b64(31) }],
    ['argon2_salt', { argon2_salt: 'not base64!' }],
    ['public_key', { public_key: b64(33) }],
    ['backup_a', { backup_a: '' }],
    ['argon2_params.m', { argon2_params: { m: 1 << 30, t: 3, p: 4 } }],
    ['argon2_params.t', { argon2_params: { m: 65_536, t: 0, p: 4 } }],
    ['argon2_params.p', { argon2_params: { m: 65_536, t: 3, p: 1.5 } }],
    ['backup_b', { backup_b: undefined }],
    ['extra', { extra: true }],
    // The identity point: a small-order Ed25519 key that verifies R = identity, S = 0 for any message.
    [
      'signing_public_key',
      { signing_public_key: Buffer.from([1, ...new Uint8Array(31)]).toString('base64') },
    ],
  ])('VALIDATION_ERROR for a bad %s', async (field, patch) => {
    const session = await registerUser(server);
    const body = { ...full(session.deviceId), ...patch };
    const res = await call(server, 'POST', '/keys/backup', { token: session.accessToken, json: body });
    expect(expectError(res, 400, 'VALIDATION_ERROR').params['field']).toBe(field);
  });

  it('requires the device_id of the access token', async () => {
    const session = await registerUser(server);
    const res = await call(server, 'POST', '/keys/backup', {
      token: session.accessToken,
      json: minimal('another-device'),
    });
    expect(expectError(res, 400, 'VALIDATION_ERROR').params).toMatchObject({
      field: 'device_id',
      reason: 'device_mismatch',
    });
  });

  it('requires an access token', async () => {
    expectError(await call(server, 'POST', '/keys/backup', { json: minimal('d') }), 401, 'UNAUTHORIZED');
    expectError(await call(server, 'GET', '/keys/backup'), 401, 'UNAUTHORIZED');
  });
});
