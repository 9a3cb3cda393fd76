/**
 * The UserClient against an undici MockAgent (network disabled): the
 * registration sequence, what leaves the process (never the protection
 * password), the refresh cookie on TOKEN_EXPIRED, and option checks.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { UserClient } from '../../../packages/sdk/src/client/index.js';
import {
  isConfigurationError,
  isServiceError,
  isValidationError,
} from '../../../packages/sdk/src/core/errors/index.js';
import { CHEAP_BACKUP, PROTECTION_PASSWORD } from '../../helpers/client-setup.js';
import { errorBody, JSON_HEADERS, mockService, ORIGIN } from '../../helpers/transport-rest.js';

const COOKIE = 'refresh_token=R1; HttpOnly; Secure; SameSite=Strict; Path=/auth; Max-Age=2592000';
const tokenAnswer = (n: number) => ({
  data: {
    user_id: 'u1',
    device_id: 'dev-1',
    access_token: `jwt-${n}`,
    token_type: 'Bearer',
    expires_in_seconds: 300,
  },
});

interface Seen {
  method: string;
  path: string;
  body: string;
  headers: Record<string, string>;
}

function setup(baseUrl = ORIGIN) {
  const { agent, pool } = mockService();
  const seen: Seen[] = [];
  const record = (opts: { method: string; path: string; body?: unknown; headers?: unknown }): void => {
    seen.push({
      method: opts.method,
      path: opts.path,
      body: String(opts.body ?? ''),
      headers: opts.headers as Record<string, string>,
    });
  };
  const client = new UserClient({
    baseUrl,
    deviceId: 'dev-1',
    dispatcher: agent,
    keyBackup: CHEAP_BACKUP,
    retry: { maxAttempts: 1 },
  });
  return { agent, pool, seen, record, client };
}

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe('UserClient (mocked service)', () => {
  it('registers in the spec order and never sends the protection password', async () => {
    const { agent, pool, seen, record, client } = setup();
    cleanup = () => agent.close();
    pool.intercept({ path: '/auth/send-code', method: 'POST' }).reply((o) => {
      record(o);
      return {
        statusCode: 200,
        data: { data: { expires_in_seconds: 600 } },
        responseOptions: { headers: JSON_HEADERS },
      };
    });
    pool.intercept({ path: '/auth/register', method: 'POST' }).reply((o) => {
      record(o);
      return {
        statusCode: 201,
        data: tokenAnswer(1),
        responseOptions: { headers: { ...JSON_HEADERS, 'set-cookie': COOKIE } },
      };
    });
    pool.intercept({ path: '/keys/backup', method: 'POST' }).reply((o) => {
      record(o);
      return {
        statusCode: 201,
        data: { data: { device_id: 'dev-1', form: 'full' } },
        responseOptions: { headers: JSON_HEADERS },
      };
    });
    expect(await client.sendCode({ email: 'a@example.com', scene: 'register', turnstileToken: 't' })).toEqual(
      { expiresInSeconds: 600 },
    );
    const info = await client.register({
      email: 'a@example.com',
      code: '123456',
      accountPassword: 'account-password',
      displayName: 'Ada',
      deviceLocale: 'en-GB',
      turnstileToken: 't',
      protectionPassword: PROTECTION_PASSWORD,
    });
    expect(info).toMatchObject({ userId: 'u1', deviceId: 'dev-1' });
    expect(seen.map((s) => s.path)).toEqual(['/auth/send-code', '/auth/register', '/keys/backup']);
    expect(JSON.parse(seen[1]!.body)).toMatchObject({
      device_id: 'dev-1',
      display_name: 'Ada',
      turnstile_token: 't',
    });
    const backup = JSON.parse(seen[2]!.body) as Record<string, unknown>;
    expect(backup).toMatchObject({ device_id: 'dev-1', argon2_params: CHEAP_BACKUP.params });
    expect(Object.keys(backup).sort()).toEqual(
      [
        'argon2_params',
        'argon2_salt',
        'backup_a',
        'backup_b',
        'device_id',
        'public_key',
        'signing_public_key',
      ].sort(),
    );
    expect(seen[2]!.headers['authorization']).toBe('Bearer jwt-1');
    for (const s of seen) expect(s.body).not.toContain(PROTECTION_PASSWORD);
    expect(client.keyFingerprint).toMatch(/^[0-9a-f]{16}$/);
  });

  it('refreshes with the cookie on TOKEN_EXPIRED and retries with the new token', async () => {
    const { agent, pool, seen, record, client } = setup('http://127.0.0.1:9');
    const local = agent.get('http://127.0.0.1:9');
    cleanup = () => agent.close();
    void pool;
    local
      .intercept({ path: '/auth/login', method: 'POST' })
      .reply(200, tokenAnswer(1), { headers: { ...JSON_HEADERS, 'set-cookie': COOKIE } });
    local.intercept({ path: '/users/me/devices', method: 'GET' }).reply((o) => {
      record(o);
      return {
        statusCode: 401,
        data: errorBody('TOKEN_EXPIRED'),
        responseOptions: { headers: JSON_HEADERS },
      };
    });
    local.intercept({ path: '/auth/refresh', method: 'POST' }).reply((o) => {
      record(o);
      return {
        statusCode: 200,
        data: tokenAnswer(2),
        responseOptions: { headers: { ...JSON_HEADERS, 'set-cookie': COOKIE.replace('R1', 'R2') } },
      };
    });
    local.intercept({ path: '/users/me/devices', method: 'GET' }).reply((o) => {
      record(o);
      return {
        statusCode: 200,
        data: { data: [{ device_id: 'dev-1', name: 'Laptop', current: true }] },
        responseOptions: { headers: JSON_HEADERS },
      };
    });
    await client.login({ email: 'a@example.com', accountPassword: 'account-password', turnstileToken: 't' });
    const devices = await client.devices();
    expect(devices).toEqual([expect.objectContaining({ deviceId: 'dev-1', name: 'Laptop', current: true })]);
    expect(
      seen.map((s) => `${s.method} ${s.path} ${s.headers['authorization'] ?? s.headers['cookie']}`),
    ).toEqual([
      'GET /users/me/devices Bearer jwt-1',
      'POST /auth/refresh refresh_token=R1',
      'GET /users/me/devices Bearer jwt-2',
    ]);
  });

  it('turns a malformed answer into a ValidationError', async () => {
    const { agent, pool, client } = setup();
    cleanup = () => agent.close();
    pool
      .intercept({ path: '/auth/login', method: 'POST' })
      .reply(200, tokenAnswer(1), { headers: JSON_HEADERS });
    pool
      .intercept({ path: '/users/me/devices', method: 'GET' })
      .reply(200, { data: { devices: 'not a list' } }, { headers: JSON_HEADERS });
    pool
      .intercept({ path: '/auth/login', method: 'POST' })
      .reply(
        200,
        { data: { user_id: 'u1', access_token: 'bad token with spaces', expires_in_seconds: 300 } },
        { headers: JSON_HEADERS },
      );
    await client.login({ email: 'a@example.com', accountPassword: 'account-password', turnstileToken: 't' });
    expect(isValidationError(await client.devices().catch((e: unknown) => e))).toBe(true);
    const bad = await client
      .login({ email: 'a@example.com', accountPassword: 'account-password', turnstileToken: 't' })
      .catch((e: unknown) => e);
    expect(isValidationError(bad)).toBe(true);
    expect((bad as Error).message).not.toContain('bad token');
  });

  it('does not send the Secure cookie over plain http to a non-loopback host', async () => {
    const { agent, client } = setup('http://dev-box:8080');
    cleanup = () => agent.close();
    const pool = agent.get('http://dev-box:8080');
    pool
      .intercept({ path: '/auth/login', method: 'POST' })
      .reply(200, tokenAnswer(1), { headers: { ...JSON_HEADERS, 'set-cookie': COOKIE } });
    await client.login({ email: 'a@example.com', accountPassword: 'account-password', turnstileToken: 't' });
    const err = await client.refresh().catch((e: unknown) => e);
    expect(isConfigurationError(err)).toBe(true);
  });

  it('answers TOKEN_EXPIRED without a request when no cookie is held', async () => {
    const { agent, client } = setup();
    cleanup = () => agent.close();
    const err = await client.refresh().catch((e: unknown) => e);
    expect(isServiceError(err, 'TOKEN_EXPIRED')).toBe(true);
  });

  it('checks options and refuses to send or connect before sign-in', async () => {
    expect(isConfigurationError(thrown(() => new UserClient({ baseUrl: 'ftp://x' })))).toBe(true);
    expect(isConfigurationError(thrown(() => new UserClient({ baseUrl: ORIGIN, deviceId: '' })))).toBe(true);
    const client = new UserClient({ baseUrl: ORIGIN });
    expect(client.deviceId).toMatch(/^[0-9a-f-]{36}$/);
    expect(
      isConfigurationError(await client.send('c1', { type: 'text', text: 'x' }).catch((e: unknown) => e)),
    ).toBe(true);
    expect(isConfigurationError(await client.connect().catch((e: unknown) => e))).toBe(true);
  });
});

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}
