/**
 * The migration routes over raw HTTP: bad bodies, steps out of order, a
 * revealed key that does not fit the commitment, and the 404
 * MIGRATION_SESSION_EXPIRED for ids nobody may see.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATION_COMMIT_LABEL } from '../../../packages/sdk/src/core/protocol/migration.js';
import { MIGRATION_ROUTES, routePath } from '../../../packages/sdk/src/core/protocol/service-names.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import {
  call,
  expectError,
  passwordLogin,
  registerUser,
  sessionOf,
  startTestServer,
} from '../../helpers/server-http.js';

let server: ReferenceServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const R = MIGRATION_ROUTES;
const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');
const commit = (key: Uint8Array): string =>
  createHash('sha256').update(MIGRATION_COMMIT_LABEL).update(key).digest('base64');

async function twoDevices() {
  const oldDevice = `old-${randomBytes(4).toString('hex')}`;
  const old = await registerUser(server, { deviceId: oldDevice });
  const fresh = sessionOf(
    await passwordLogin(server, old.email, old.password, {
      deviceId: `new-${randomBytes(4).toString('hex')}`,
    }),
    old.email,
    old.password,
  );
  /** A new access token for the old device (they last 300 s). */
  const relogin = async (): Promise<string> =>
    sessionOf(
      await passwordLogin(server, old.email, old.password, { deviceId: oldDevice }),
      old.email,
      old.password,
    ).accessToken;
  return { old: old.accessToken, fresh: fresh.accessToken, relogin };
}

describe('migration routes', () => {
  it('refuses malformed bodies with VALIDATION_ERROR naming the field', async () => {
    const { old, fresh } = await twoDevices();
    for (const json of [
      {},
      { commitment: 'abc' },
      { commitment: b64(new Uint8Array(31)) },
      { commitment: b64(randomBytes(32)), x: 1 },
    ]) {
      expect(
        expectError(
          await call(server, 'POST', R.startMigration.path, { token: old, json }),
          400,
          'VALIDATION_ERROR',
        ).params,
      ).toMatchObject({
        field: expect.any(String),
      });
    }
    const badCode = await call(server, 'POST', R.joinMigration.path, {
      token: fresh,
      json: { code: 'not a code!' },
    });
    expect(expectError(badCode, 400, 'VALIDATION_ERROR').params).toMatchObject({ field: 'code' });
    // The key no longer travels with the join: the new device sends it once it holds the commitment.
    const keyInJoin = await call(server, 'POST', R.joinMigration.path, {
      token: fresh,
      json: { code: '0000-0000', ephemeral_public_key: b64(randomBytes(32)) },
    });
    expectError(keyInJoin, 400, 'VALIDATION_ERROR');
    expectError(
      await call(server, 'POST', R.startMigration.path, { json: { commitment: b64(randomBytes(32)) } }),
      401,
      'UNAUTHORIZED',
    );
  });

  it('keeps the order open → joined → keyed → revealed → sealed, each step for its device only', async () => {
    const { old, fresh } = await twoDevices();
    const oldKey = randomBytes(32);
    const started = await call(server, 'POST', R.startMigration.path, {
      token: old,
      json: { commitment: commit(oldKey) },
    });
    expect(started.status).toBe(201);
    const { session_id: id, code } = started.data as { session_id: string; code: string };
    const path = (
      name: 'revealMigrationKey' | 'sendMigrationBundle' | 'getMigration' | 'submitMigrationKey',
    ) => routePath(R[name], { id });
    const bundle = { bundle: b64(randomBytes(80)) };

    expectError(
      await call(server, 'POST', path('revealMigrationKey'), {
        token: old,
        json: { ephemeral_public_key: b64(oldKey) },
      }),
      400,
      'VALIDATION_ERROR',
    );
    const joined = await call(server, 'POST', R.joinMigration.path, { token: fresh, json: { code } });
    expect((joined.data as { state: string }).state).toBe('joined');
    expect((joined.data as { code?: string }).code).toBeUndefined();
    expect(joined.data).toMatchObject({ session_id: id, commitment: commit(oldKey) });
    // Joined but no key yet: the old device cannot reveal.
    expectError(
      await call(server, 'POST', path('revealMigrationKey'), {
        token: old,
        json: { ephemeral_public_key: b64(oldKey) },
      }),
      400,
      'VALIDATION_ERROR',
    );
    const newKey = { ephemeral_public_key: b64(randomBytes(32)) };
    const byOld = await call(server, 'POST', path('submitMigrationKey'), { token: old, json: newKey });
    expect(expectError(byOld, 400, 'VALIDATION_ERROR').params).toMatchObject({ reason: 'not_new_device' });
    const keyed = await call(server, 'POST', path('submitMigrationKey'), { token: fresh, json: newKey });
    expect(keyed.data).toMatchObject({
      state: 'keyed',
      new_ephemeral_public_key: newKey.ephemeral_public_key,
    });
    // The same key again (a retried request) answers the session; another key is refused.
    expect(
      (await call(server, 'POST', path('submitMigrationKey'), { token: fresh, json: newKey })).status,
    ).toBe(200);
    const other = await call(server, 'POST', path('submitMigrationKey'), {
      token: fresh,
      json: { ephemeral_public_key: b64(randomBytes(32)) },
    });
    expect(expectError(other, 400, 'VALIDATION_ERROR').params).toMatchObject({ reason: 'wrong_state' });
    expectError(
      await call(server, 'POST', path('sendMigrationBundle'), { token: old, json: bundle }),
      400,
      'VALIDATION_ERROR',
    );
    const byNew = await call(server, 'POST', path('revealMigrationKey'), {
      token: fresh,
      json: { ephemeral_public_key: b64(oldKey) },
    });
    expect(expectError(byNew, 400, 'VALIDATION_ERROR').params).toMatchObject({ reason: 'not_old_device' });
    const mismatch = await call(server, 'POST', path('revealMigrationKey'), {
      token: old,
      json: { ephemeral_public_key: b64(randomBytes(32)) },
    });
    expect(expectError(mismatch, 400, 'VALIDATION_ERROR').params).toMatchObject({
      reason: 'commitment_mismatch',
    });
    expect(
      (
        await call(server, 'POST', path('revealMigrationKey'), {
          token: old,
          json: { ephemeral_public_key: b64(oldKey) },
        })
      ).status,
    ).toBe(200);
    // A retried reveal of the same key answers the session again.
    expect(
      (
        await call(server, 'POST', path('revealMigrationKey'), {
          token: old,
          json: { ephemeral_public_key: b64(oldKey) },
        })
      ).status,
    ).toBe(200);
    expect(
      (await call(server, 'POST', path('sendMigrationBundle'), { token: old, json: bundle })).status,
    ).toBe(200);
    // Only the new device reads the bundle.
    expect((await call(server, 'GET', path('getMigration'), { token: old })).data).not.toHaveProperty(
      'bundle',
    );
    expect((await call(server, 'GET', path('getMigration'), { token: fresh })).data).toMatchObject({
      state: 'sealed',
      ...bundle,
    });
    expect((await call(server, 'DELETE', routePath(R.closeMigration, { id }), { token: fresh })).status).toBe(
      200,
    );
    expectError(
      await call(server, 'GET', path('getMigration'), { token: old }),
      404,
      'MIGRATION_SESSION_EXPIRED',
    );
  });

  it('answers MIGRATION_SESSION_EXPIRED for an unknown id and after 10 minutes', async () => {
    const { old, relogin } = await twoDevices();
    expectError(
      await call(server, 'GET', routePath(R.getMigration, { id: 'nope' }), { token: old }),
      404,
      'MIGRATION_SESSION_EXPIRED',
    );
    const started = await call(server, 'POST', R.startMigration.path, {
      token: old,
      json: { commitment: b64(randomBytes(32)) },
    });
    const id = (started.data as { session_id: string }).session_id;
    server.advanceTime(10 * 60_000 - 1);
    const token = await relogin(); // access tokens last 300 s
    expect((await call(server, 'GET', routePath(R.getMigration, { id }), { token })).status).toBe(200);
    server.advanceTime(1);
    expectError(
      await call(server, 'GET', routePath(R.getMigration, { id }), { token }),
      404,
      'MIGRATION_SESSION_EXPIRED',
    );
  });
});
