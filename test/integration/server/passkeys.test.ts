import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import {
  call,
  expectError,
  registerUser,
  sessionOf,
  startTestServer,
  type Session,
} from '../../helpers/server-http.js';
import {
  SoftwareAuthenticator,
  type CreationOptions,
  type RequestOptions,
} from '../../helpers/server-webauthn-authenticator.js';

let server: ReferenceServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

async function enrol(session: Session, authenticator = new SoftwareAuthenticator()) {
  const begin = await call(server, 'POST', '/users/me/passkeys/begin', { token: session.accessToken });
  expect(begin.status, begin.text).toBe(200);
  const options = begin.data['options'] as CreationOptions;
  const credential = authenticator.create(options);
  const complete = await call(server, 'POST', '/users/me/passkeys/complete', {
    token: session.accessToken,
    json: { credential, name: 'Laptop key' },
  });
  return { authenticator, complete, options };
}

async function beginLogin(): Promise<RequestOptions> {
  const res = await call(server, 'POST', '/auth/passkey/begin');
  expect(res.status, res.text).toBe(200);
  expect(res.data['expires_in_seconds']).toBe(300);
  return res.data['options'] as RequestOptions;
}

describe('passkey registration (signed-in user)', () => {
  it('stores a passkey after verifying a real "none" attestation', async () => {
    const session = await registerUser(server);
    const { complete, authenticator, options } = await enrol(session);
    expect(complete.status, complete.text).toBe(201);
    expect(complete.data['credential_id']).toBe(
      Buffer.from(authenticator.credentials[0]!.id).toString('base64url'),
    );
    expect(options.user.name).toBe(session.email);
    const list = await call(server, 'GET', '/users/me/passkeys', { token: session.accessToken });
    expect(list.json).toMatchObject({
      data: [{ credential_id: complete.data['credential_id'], name: 'Laptop key' }],
    });
  });

  it('needs a signed-in user', async () => {
    expectError(await call(server, 'POST', '/users/me/passkeys/begin'), 401, 'UNAUTHORIZED');
  });

  it('refuses an attestation for a challenge it did not issue', async () => {
    const session = await registerUser(server);
    const credential = new SoftwareAuthenticator().create({
      challenge: 'bm90LWlzc3VlZC1ieS10aGUtc2VydmVy',
      rp: { name: 'x' },
      user: { id: 'dXNlcg', name: 'u', displayName: 'u' },
    });
    const res = await call(server, 'POST', '/users/me/passkeys/complete', {
      token: session.accessToken,
      json: { credential },
    });
    expectError(res, 401, 'PASSKEY_VERIFICATION_FAILED');
  });

  it('refuses an attestation from a foreign origin', async () => {
    const session = await registerUser(server);
    const begin = await call(server, 'POST', '/users/me/passkeys/begin', { token: session.accessToken });
    const credential = new SoftwareAuthenticator().create(begin.data['options'] as CreationOptions, {
      origin: 'https://evil.example',
    });
    const res = await call(server, 'POST', '/users/me/passkeys/complete', {
      token: session.accessToken,
      json: { credential },
    });
    expectError(res, 401, 'PASSKEY_VERIFICATION_FAILED');
  });

  it("cannot complete another user's challenge", async () => {
    const alice = await registerUser(server);
    const bob = await registerUser(server);
    const begin = await call(server, 'POST', '/users/me/passkeys/begin', { token: alice.accessToken });
    const credential = new SoftwareAuthenticator().create(begin.data['options'] as CreationOptions);
    const res = await call(server, 'POST', '/users/me/passkeys/complete', {
      token: bob.accessToken,
      json: { credential },
    });
    expectError(res, 401, 'PASSKEY_VERIFICATION_FAILED');
  });

  it('removes a passkey', async () => {
    const session = await registerUser(server);
    const { complete } = await enrol(session);
    const id = String(complete.data['credential_id']);
    const del = await call(server, 'DELETE', `/users/me/passkeys/${id}`, { token: session.accessToken });
    expect(del.status).toBe(200);
    expectError(
      await call(server, 'DELETE', `/users/me/passkeys/${id}`, { token: session.accessToken }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('passkey sign-in (POST /auth/passkey/begin, /complete)', () => {
  it('signs in with a real signature and issues tokens', async () => {
    const session = await registerUser(server);
    const { authenticator } = await enrol(session);
    const options = await beginLogin();
    const credential = authenticator.get(options);
    const res = await call(server, 'POST', '/auth/passkey/complete', {
      json: { credential, device_id: 'passkey-device', device_name: 'Phone' },
    });
    const signedIn = sessionOf(res, session.email, '');
    expect(signedIn.userId).toBe(session.userId);
    expect(signedIn.deviceId).toBe('passkey-device');
    const devices = await call(server, 'GET', '/users/me/devices', { token: signedIn.accessToken });
    expect(devices.status).toBe(200);
  });

  it('PASSKEY_VERIFICATION_FAILED on a bad signature', async () => {
    const session = await registerUser(server);
    const { authenticator } = await enrol(session);
    const credential = authenticator.get(await beginLogin());
    const sig = Buffer.from(credential.response.signature, 'base64url');
    sig[sig.length - 1] = sig[sig.length - 1]! ^ 0x01;
    credential.response.signature = sig.toString('base64url');
    expectError(
      await call(server, 'POST', '/auth/passkey/complete', { json: { credential } }),
      401,
      'PASSKEY_VERIFICATION_FAILED',
    );
  });

  it('PASSKEY_VERIFICATION_FAILED when authenticatorData was altered after signing', async () => {
    const session = await registerUser(server);
    const { authenticator } = await enrol(session);
    const credential = authenticator.get(await beginLogin());
    const data = Buffer.from(credential.response.authenticatorData, 'base64url');
    data[data.length - 1] = data[data.length - 1]! ^ 0x01; // signature counter
    credential.response.authenticatorData = data.toString('base64url');
    expectError(
      await call(server, 'POST', '/auth/passkey/complete', { json: { credential } }),
      401,
      'PASSKEY_VERIFICATION_FAILED',
    );
  });

  it('a challenge is single use', async () => {
    const session = await registerUser(server);
    const { authenticator } = await enrol(session);
    const options = await beginLogin();
    const first = await call(server, 'POST', '/auth/passkey/complete', {
      json: { credential: authenticator.get(options) },
    });
    expect(first.status, first.text).toBe(200);
    const replay = await call(server, 'POST', '/auth/passkey/complete', {
      json: { credential: authenticator.get(options) },
    });
    expectError(replay, 401, 'PASSKEY_VERIFICATION_FAILED');
  });

  it('a challenge expires after 5 minutes', async () => {
    const session = await registerUser(server);
    const { authenticator } = await enrol(session);
    const options = await beginLogin();
    server.advanceTime(300_001);
    const res = await call(server, 'POST', '/auth/passkey/complete', {
      json: { credential: authenticator.get(options) },
    });
    expectError(res, 401, 'PASSKEY_VERIFICATION_FAILED');
  });

  it('refuses an unknown credential, a lowered counter and a missing user-verified flag', async () => {
    const session = await registerUser(server);
    const { authenticator } = await enrol(session);
    const stranger = new SoftwareAuthenticator();
    stranger.create({
      challenge: 'AAAA',
      rp: { name: 'x' },
      user: { id: 'dXNlcg', name: 'u', displayName: 'u' },
    });
    const unknown = await call(server, 'POST', '/auth/passkey/complete', {
      json: { credential: stranger.get(await beginLogin()) },
    });
    expectError(unknown, 401, 'PASSKEY_VERIFICATION_FAILED');

    const ok = await call(server, 'POST', '/auth/passkey/complete', {
      json: { credential: authenticator.get(await beginLogin(), { counter: 10 }) },
    });
    expect(ok.status, ok.text).toBe(200);
    const rewound = await call(server, 'POST', '/auth/passkey/complete', {
      json: { credential: authenticator.get(await beginLogin(), { counter: 5 }) },
    });
    expectError(rewound, 401, 'PASSKEY_VERIFICATION_FAILED');

    authenticator.userVerified = false;
    const noUv = await call(server, 'POST', '/auth/passkey/complete', {
      json: { credential: authenticator.get(await beginLogin()) },
    });
    expectError(noUv, 401, 'PASSKEY_VERIFICATION_FAILED');
  });

  it('a malformed assertion is a VALIDATION_ERROR, not a 500', async () => {
    const res = await call(server, 'POST', '/auth/passkey/complete', { json: { credential: { id: 'x' } } });
    expectError(res, 400, 'VALIDATION_ERROR');
  });
});
