import { request } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { call, expectError, registerUser, startTestServer, type Session } from '../../helpers/server-http.js';

let server: ReferenceServer;
let session: Session;

beforeAll(async () => {
  server = await startTestServer();
  session = await registerUser(server);
});
afterAll(() => server.close());

/** 32 zero bytes in base64. */
const KEY32 = `${'A'.repeat(43)}=`;

interface Endpoint {
  method: string;
  path: string;
  auth: boolean;
  /** A body that passes validation (undefined for endpoints without a body). */
  body?: Record<string, unknown>;
}

const ENDPOINTS: Endpoint[] = [
  {
    method: 'POST',
    path: '/auth/send-code',
    auth: false,
    body: { email: 'a@example.com', scene: 'login', turnstile_token: 't' },
  },
  {
    method: 'POST',
    path: '/auth/register',
    auth: false,
    body: {
      email: 'b@example.com',
      code: '000000',
      account_password: 'password123',
      display_name: 'Bo',
      device_locale: 'en',
      turnstile_token: 't',
    },
  },
  {
    method: 'POST',
    path: '/auth/login',
    auth: false,
    body: { email: 'c@example.com', account_password: 'x', turnstile_token: 't' },
  },
  { method: 'POST', path: '/auth/login-code', auth: false, body: { email: 'c@example.com', code: '000000' } },
  {
    method: 'POST',
    path: '/auth/reset-password',
    auth: false,
    body: { email: 'c@example.com', code: '000000', new_account_password: 'password123' },
  },
  { method: 'POST', path: '/auth/refresh', auth: false },
  { method: 'POST', path: '/auth/passkey/begin', auth: false },
  {
    method: 'POST',
    path: '/auth/passkey/complete',
    auth: false,
    body: {
      credential: {
        id: 'AAAA',
        rawId: 'AAAA',
        type: 'public-key',
        response: { clientDataJSON: 'AAAA', authenticatorData: 'AAAA', signature: 'AAAA' },
        clientExtensionResults: {},
      },
    },
  },
  {
    method: 'POST',
    path: '/keys/backup',
    auth: true,
    body: { backup_a: 'AAAA', argon2_salt: KEY32, public_key: KEY32, device_id: 'd' },
  },
  { method: 'GET', path: '/keys/backup', auth: true },
  { method: 'GET', path: '/users/me/devices', auth: true },
  { method: 'DELETE', path: '/users/me/devices/some-device', auth: true },
  { method: 'POST', path: '/users/me/passkeys/begin', auth: true },
  {
    method: 'POST',
    path: '/users/me/passkeys/complete',
    auth: true,
    body: {
      credential: {
        id: 'AAAA',
        rawId: 'AAAA',
        type: 'public-key',
        response: { clientDataJSON: 'AAAA', attestationObject: 'AAAA' },
        clientExtensionResults: {},
      },
    },
  },
  { method: 'GET', path: '/users/me/passkeys', auth: true },
];

const withBody = ENDPOINTS.filter((e) => e.body !== undefined);
const tokenFor = (e: Endpoint) => (e.auth ? { token: session.accessToken } : {});

function expectClientError(res: { status: number; text: string; error: unknown }): void {
  expect(res.status, res.text).toBeGreaterThanOrEqual(400);
  expect(res.status, res.text).toBeLessThan(500);
  expect(res.error).toMatchObject({
    code: expect.any(String),
    message: expect.any(String),
    i18n_key: expect.any(String),
  });
  expect(res.text).not.toMatch(/\bat\s+\S+\s*\(|node:internal|\.ts:\d+/);
}

describe.each(withBody)('$method $path with a bad body', (endpoint) => {
  const send = (options: Parameters<typeof call>[3]) =>
    call(server, endpoint.method, endpoint.path, { ...tokenFor(endpoint), ...options });

  it('missing body and missing fields', async () => {
    expect(expectError(await send({}), 400, 'VALIDATION_ERROR').params).toMatchObject({
      reason: 'body_required',
    });
    expect(expectError(await send({ json: {} }), 400, 'VALIDATION_ERROR').params).toMatchObject({
      reason: 'missing',
    });
    for (const field of Object.keys(endpoint.body!)) {
      const { [field]: _dropped, ...rest } = endpoint.body!;
      expect(expectError(await send({ json: rest }), 400, 'VALIDATION_ERROR').params).toMatchObject({
        field,
        reason: 'missing',
      });
    }
  });

  it('wrong types', async () => {
    for (const field of Object.keys(endpoint.body!)) {
      for (const wrong of [12345, true, null, ['x'], { nested: 1 }]) {
        const res = await send({ json: { ...endpoint.body, [field]: wrong } });
        const named = String(expectError(res, 400, 'VALIDATION_ERROR').params['field']);
        expect(named === field || named.startsWith(`${field}.`), named).toBe(true);
      }
    }
  });

  it('extra fields', async () => {
    const res = await send({ json: { ...endpoint.body, is_admin: true } });
    expect(expectError(res, 400, 'VALIDATION_ERROR').params).toMatchObject({
      field: 'is_admin',
      reason: 'unknown_field',
    });
  });

  it('malformed JSON, non-objects, wrong content type, oversized', async () => {
    const malformed = await send({ raw: '{"email":', contentType: 'application/json' });
    expect(expectError(malformed, 400, 'VALIDATION_ERROR').params).toEqual({ reason: 'malformed_json' });
    for (const raw of ['[]', 'null', '42', '"text"']) {
      const res = await send({ raw, contentType: 'application/json' });
      expect(expectError(res, 400, 'VALIDATION_ERROR').params).toEqual({ reason: 'not_an_object' });
    }
    const plain = await send({ raw: JSON.stringify(endpoint.body), contentType: 'text/plain' });
    expect(expectError(plain, 400, 'VALIDATION_ERROR').params).toEqual({
      reason: 'unsupported_content_type',
    });
    const untyped = await send({ raw: new TextEncoder().encode(JSON.stringify(endpoint.body)) });
    expect(expectError(untyped, 400, 'VALIDATION_ERROR').params).toEqual({
      reason: 'unsupported_content_type',
    });
    const badUtf8 = await send({
      raw: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
      contentType: 'application/json',
    });
    expect(expectError(badUtf8, 400, 'VALIDATION_ERROR').params).toEqual({ reason: 'invalid_utf8' });
    const big = await send({ json: { ...endpoint.body, padding: 'x'.repeat(70_000) } });
    expect(expectError(big, 400, 'VALIDATION_ERROR').params).toEqual({
      reason: 'body_too_large',
      max_bytes: 65_536,
    });
    const huge = await send({ raw: 'x'.repeat(1_048_576), contentType: 'application/json' });
    expect(expectError(huge, 400, 'VALIDATION_ERROR').params).toMatchObject({ reason: 'body_too_large' });
  });

  it('random bodies never cause a 5xx (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.jsonValue(),
          fc.dictionary(fc.constantFrom(...Object.keys(endpoint.body!), 'x'), fc.jsonValue()),
          fc.record(Object.fromEntries(Object.keys(endpoint.body!).map((k) => [k, fc.jsonValue()]))),
        ),
        async (body) => {
          const res = await send({ raw: JSON.stringify(body) ?? 'null', contentType: 'application/json' });
          if (res.status >= 400) expectClientError(res);
          else expect(res.status).toBeLessThan(300);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('random bytes never cause a 5xx (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 200 }), async (bytes) => {
        expectClientError(await send({ raw: bytes, contentType: 'application/json' }));
      }),
      { numRuns: 25 },
    );
  });
});

describe('endpoints without a body', () => {
  // fetch cannot send a body with GET, so only the other methods are tried here.
  const bodiless = ENDPOINTS.filter((e) => e.body === undefined && e.method !== 'GET');

  it.each(bodiless)('$method $path refuses unexpected fields and malformed JSON', async (endpoint) => {
    const extra = await call(server, endpoint.method, endpoint.path, {
      ...tokenFor(endpoint),
      json: { x: 1 },
    });
    expect(expectError(extra, 400, 'VALIDATION_ERROR').params).toMatchObject({
      field: 'x',
      reason: 'unknown_field',
    });
    const bad = await call(server, endpoint.method, endpoint.path, {
      ...tokenFor(endpoint),
      raw: '{{',
      contentType: 'application/json',
    });
    expect(expectError(bad, 400, 'VALIDATION_ERROR').params).toEqual({ reason: 'malformed_json' });
  });
});

function rawRequest(method: string, path: string, body: string, headers: Record<string, string>) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(
      server.url + path,
      { method, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('GET endpoints with a body (sent over raw node:http)', () => {
  it.each(ENDPOINTS.filter((e) => e.method === 'GET'))(
    '$path refuses an unexpected body',
    async (endpoint) => {
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${session.accessToken}` };
      const extra = await rawRequest('GET', endpoint.path, '{"x":1}', headers);
      expect(extra.status).toBe(400);
      expect(JSON.parse(extra.text)).toMatchObject({
        error: { code: 'VALIDATION_ERROR', params: { field: 'x' } },
      });
      const bad = await rawRequest('GET', endpoint.path, '{{', headers);
      expect(JSON.parse(bad.text)).toMatchObject({
        error: { code: 'VALIDATION_ERROR', params: { reason: 'malformed_json' } },
      });
    },
  );
});

describe('authentication comes before the body', () => {
  it.each(ENDPOINTS.filter((e) => e.auth))(
    '$method $path without a token is 401 whatever the body',
    async (endpoint) => {
      const body = endpoint.method === 'GET' ? {} : { raw: '{{', contentType: 'application/json' };
      expectError(await call(server, endpoint.method, endpoint.path, body), 401, 'UNAUTHORIZED');
    },
  );
});

describe('unknown routes', () => {
  it.each([
    ['GET', '/'],
    ['GET', '/nope'],
    ['POST', '/auth'],
    ['POST', '/auth/login/'],
    ['POST', '/auth/logins'],
    ['GET', '/users/me/devices/x/y'],
    ['POST', '/_control/clock/advance/extra'],
  ])('%s %s → 404 NOT_FOUND', async (method, path) => {
    expectError(await call(server, method, path, method === 'GET' ? {} : { json: {} }), 404, 'NOT_FOUND');
  });

  it('a known path with another method → 404 NOT_FOUND naming the allowed methods', async () => {
    const res = await call(server, 'PUT', '/auth/login', { json: {} });
    expect(expectError(res, 404, 'NOT_FOUND').params).toEqual({
      reason: 'method_not_allowed',
      allow: ['POST'],
    });
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('random paths never cause a 5xx (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'),
        fc.array(fc.stringMatching(/^[A-Za-z0-9._~%-]{0,12}$/), { minLength: 1, maxLength: 4 }),
        async (method, segments) => {
          const res = await call(server, method, `/${segments.join('/')}`, { token: session.accessToken });
          expect(res.status, res.text).toBeLessThan(500);
        },
      ),
      { numRuns: 60 },
    );
  });
});
