import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { toBase64 } from '../../../packages/sdk/src/core/encoding.js';
import {
  generateKeys,
  keyFingerprint,
  keyStatementToWire,
  signKeyStatement,
  type KeyStatementFields,
} from '../../../packages/sdk/src/crypto/index.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import {
  addAgent,
  createTestAgent,
  createTestUser,
  proofFor,
  registerKeys,
  startAgentServer,
  type TestUser,
} from '../../helpers/server-agents.js';
import { call, expectError } from '../../helpers/server-http.js';

const DAY = 86_400_000;
let server: ReferenceServer;
let owner: TestUser;

beforeAll(async () => {
  server = await startAgentServer();
});
afterAll(() => server.close());
beforeEach(async () => {
  owner = await createTestUser(server);
});

const regenerate = (agentId: string, emergency: boolean) =>
  call(server, 'POST', `/agents/${agentId}/token/regenerate`, {
    token: owner.accessToken,
    json: { emergency },
  });
const check = async (agentId: string, token: string, keys = generateKeys()) =>
  call(server, 'POST', `/agents/${agentId}/keys/check`, {
    token,
    json: await proofFor(server, agentId, token, keys),
  });

describe('registering keys with a proof of possession', () => {
  it('challenge → PUT /agents/:id/keys → 201; the same keys again → 200; the agent view shows them', async () => {
    const agent = await createTestAgent(server, owner, { register: false });
    const challenge = await call(server, 'GET', `/agents/${agent.agentId}/keys/challenge`, {
      token: agent.token,
    });
    expect(challenge.data).toMatchObject({
      challenge: expect.stringMatching(/^[A-Za-z0-9+/]{43}=$/),
      server_public_key: expect.stringMatching(/^[A-Za-z0-9+/]{43}=$/),
      expires_at: new Date(server.clock.now() + 300_000).toISOString(),
    });
    const first = await registerKeys(server, agent.agentId, agent.token, agent.keys);
    expect(first.status, first.text).toBe(201);
    expect(first.data).toMatchObject({
      agent_id: agent.agentId,
      public_key: toBase64(agent.keys.encryption.publicKey),
      key_id: keyFingerprint(agent.keys.encryption.publicKey),
      signing_key_id: keyFingerprint(agent.keys.signing.publicKey),
      valid_until: null,
    });
    expect((await registerKeys(server, agent.agentId, agent.token, agent.keys)).status).toBe(200);
    const view = await call(server, 'GET', `/agents/${agent.agentId}`, { token: agent.token });
    expect(view.data['keys']).toMatchObject({ key_id: keyFingerprint(agent.keys.encryption.publicKey) });
  });

  it('a forged signature or X25519 proof is INVALID_SIGNATURE; a challenge is single use', async () => {
    const agent = await createTestAgent(server, owner, { register: false });
    const proof = await proofFor(server, agent.agentId, agent.token, agent.keys);
    const other = generateKeys();
    const wrongSig = { ...proof, signing_public_key: toBase64(other.signing.publicKey) };
    const res = await call(server, 'PUT', `/agents/${agent.agentId}/keys`, {
      token: agent.token,
      json: wrongSig,
    });
    expect(expectError(res, 400, 'INVALID_SIGNATURE').params).toMatchObject({ reason: 'signature' });
    // The challenge was consumed by the failed attempt.
    const again = await call(server, 'PUT', `/agents/${agent.agentId}/keys`, {
      token: agent.token,
      json: proof,
    });
    expect(expectError(again, 400, 'VALIDATION_ERROR').params).toMatchObject({
      reason: 'unknown_or_expired',
    });
    const fresh = await proofFor(server, agent.agentId, agent.token, agent.keys);
    const badMac = { ...fresh, key_proof: toBase64(new Uint8Array(32)) };
    const mac = await call(server, 'PUT', `/agents/${agent.agentId}/keys`, {
      token: agent.token,
      json: badMac,
    });
    expect(expectError(mac, 400, 'INVALID_SIGNATURE').params).toMatchObject({ reason: 'key_proof' });
  });

  it('a challenge expires after 5 minutes', async () => {
    const agent = await createTestAgent(server, owner, { register: false });
    const proof = await proofFor(server, agent.agentId, agent.token, agent.keys);
    server.advanceTime(300_000);
    const res = await call(server, 'PUT', `/agents/${agent.agentId}/keys`, {
      token: agent.token,
      json: proof,
    });
    expectError(res, 400, 'VALIDATION_ERROR');
  });

  it('different keys while keys are registered (no regeneration) → 409 AGENT_KEYS_MISMATCH', async () => {
    const agent = await createTestAgent(server, owner);
    const res = await registerKeys(server, agent.agentId, agent.token, generateKeys());
    expectError(res, 409, 'AGENT_KEYS_MISMATCH');
  });

  it('replace: true re-registers lost keys at once; the replaced key gets no grace', async () => {
    const agent = await createTestAgent(server, owner);
    const fresh = generateKeys();
    const proof = await proofFor(server, agent.agentId, agent.token, fresh);
    const res = await call(server, 'PUT', `/agents/${agent.agentId}/keys`, {
      token: agent.token,
      json: { ...proof, replace: true },
    });
    expect(res.status, res.text).toBe(201);
    const check = await call(server, 'POST', `/agents/${agent.agentId}/keys/check`, {
      token: agent.token,
      json: await proofFor(server, agent.agentId, agent.token, agent.keys),
    });
    expectError(check, 409, 'AGENT_KEYS_MISMATCH');
    const mine = await call(server, 'POST', `/agents/${agent.agentId}/keys/check`, {
      token: agent.token,
      json: await proofFor(server, agent.agentId, agent.token, fresh),
    });
    expect(mine.status, mine.text).toBe(200);
    expect(mine.data).toMatchObject({
      generation: 'current',
      key_id: keyFingerprint(fresh.encryption.publicKey),
    });
  });
});

describe('AGENT_KEYS_MISMATCH and AGENT_NOT_REGISTERED via POST /agents/:id/keys/check', () => {
  it('not registered → 404 AGENT_NOT_REGISTERED; matching keys → match; other keys → 409', async () => {
    const agent = await createTestAgent(server, owner, { register: false });
    expectError(await check(agent.agentId, agent.token, agent.keys), 404, 'AGENT_NOT_REGISTERED');
    await registerKeys(server, agent.agentId, agent.token, agent.keys);
    const ok = await check(agent.agentId, agent.token, agent.keys);
    expect(ok.data).toMatchObject({ match: true, generation: 'current' });
    expectError(await check(agent.agentId, agent.token), 409, 'AGENT_KEYS_MISMATCH');
  });
});

describe('a regenerated token comes with a new key pair', () => {
  it('normal: new keys registered with the new token; the old key stays valid through the grace', async () => {
    const agent = await createTestAgent(server, owner);
    const regen = await regenerate(agent.agentId, false);
    const newToken = String(regen.data['token']);
    const oldKeys = agent.keys;
    const newKeys = generateKeys();
    // The old token (in grace) may not register; the old keys are refused as "new" keys.
    expectError(await registerKeys(server, agent.agentId, agent.token, newKeys), 403, 'FORBIDDEN');
    const reused = await registerKeys(server, agent.agentId, newToken, oldKeys);
    expect(expectError(reused, 400, 'VALIDATION_ERROR').params).toMatchObject({ reason: 'keys_reused' });
    expect((await registerKeys(server, agent.agentId, newToken, newKeys)).status).toBe(201);
    const user = await createTestUser(server);
    await addAgent(server, user, agent.agentId);
    const lookup = await call(server, 'GET', `/keys/${agent.agentId}`, { token: user.accessToken });
    const view = await call(server, 'GET', `/agents/${agent.agentId}`, { token: owner.accessToken });
    const registeredAt = (view.data['keys'] as { registered_at: string }).registered_at;
    expect(lookup.data).toMatchObject({
      kind: 'agent',
      key_id: keyFingerprint(newKeys.encryption.publicKey),
      // Retired when the new generation registered: its signing key verifies only older messages.
      retired: [{ key_id: keyFingerprint(oldKeys.encryption.publicKey), retired_at: registeredAt }],
    });
    // The old process, still on the old token and keys, checks fine during the grace.
    expect((await check(agent.agentId, agent.token, oldKeys)).data).toMatchObject({ generation: 'retired' });
    server.advanceTime(7 * DAY);
    const later = await call(server, 'GET', `/keys/${agent.agentId}`, {
      token: (await server.control.accessToken(user.userId)).accessToken,
    });
    expect(later.data['retired']).toEqual([]);
  });

  it('a key statement is checked for shape and fields, stored as received and served with the keys', async () => {
    const agent = await createTestAgent(server, owner);
    const newToken = String((await regenerate(agent.agentId, false)).data['token']);
    const newKeys = generateKeys();
    const statement = (over: Partial<KeyStatementFields> = {}) =>
      keyStatementToWire(
        signKeyStatement(
          {
            subject: agent.agentId,
            generation: 2,
            encryption: newKeys.encryption.publicKey,
            signing: newKeys.signing.publicKey,
            previousKeyId: keyFingerprint(agent.keys.encryption.publicKey),
            issuedAtMs: server.clock.now(),
            ...over,
          },
          agent.keys.signing,
        ),
      );
    const put = async (json: Record<string, unknown>) =>
      call(server, 'PUT', `/agents/${agent.agentId}/keys`, {
        token: newToken,
        json: { ...(await proofFor(server, agent.agentId, newToken, newKeys)), ...json },
      });
    const other = generateKeys();
    for (const bad of [
      statement({ generation: 3 }),
      statement({ subject: 'someone-else' }),
      statement({ encryption: other.encryption.publicKey }),
      statement({ previousKeyId: keyFingerprint(other.encryption.publicKey) }),
    ]) {
      const refused = expectError(await put({ key_statement: bad }), 400, 'VALIDATION_ERROR');
      expect(refused.params).toMatchObject({ field: 'key_statement', reason: 'statement_mismatch' });
    }
    expectError(
      await put({ key_statement: { ...statement(), issued_at: 'yesterday' } }),
      400,
      'VALIDATION_ERROR',
    );
    const good = statement();
    expect((await put({ key_statement: good })).status).toBe(201);
    const user = await createTestUser(server);
    await addAgent(server, user, agent.agentId);
    const lookup = await call(server, 'GET', `/keys/${agent.agentId}`, { token: user.accessToken });
    expect(lookup.data).toMatchObject({ generation: 2, key_statements: [good] });
    const view = await call(server, 'GET', `/agents/${agent.agentId}`, { token: owner.accessToken });
    expect(view.data['keys']).toMatchObject({ generation: 2 });
  });

  it('emergency: the old key is invalid at once (AGENT_NOT_REGISTERED until new keys arrive)', async () => {
    const agent = await createTestAgent(server, owner);
    const regen = await regenerate(agent.agentId, true);
    const newToken = String(regen.data['token']);
    expectError(await check(agent.agentId, newToken, agent.keys), 404, 'AGENT_NOT_REGISTERED');
    expect((await registerKeys(server, agent.agentId, newToken, generateKeys())).status).toBe(201);
  });

  it('normal, never re-registered: the old key stops at the end of the grace', async () => {
    const agent = await createTestAgent(server, owner);
    const newToken = String((await regenerate(agent.agentId, false)).data['token']);
    expect((await check(agent.agentId, newToken, agent.keys)).status).toBe(200);
    server.advanceTime(7 * DAY);
    expectError(await check(agent.agentId, newToken, agent.keys), 404, 'AGENT_NOT_REGISTERED');
  });
});

describe('public-key lookup', () => {
  it('KEY_ENUMERATION_BLOCKED without a shared conversation (unknown ids alike); allowed once added', async () => {
    const agent = await createTestAgent(server, owner);
    const user = await createTestUser(server);
    expectError(
      await call(server, 'GET', `/keys/${agent.agentId}`, { token: user.accessToken }),
      403,
      'KEY_ENUMERATION_BLOCKED',
    );
    expectError(
      await call(server, 'GET', '/keys/no-such-id', { token: user.accessToken }),
      403,
      'KEY_ENUMERATION_BLOCKED',
    );
    expectError(
      await call(server, 'GET', `/keys/${user.userId}`, { token: agent.token }),
      403,
      'KEY_ENUMERATION_BLOCKED',
    );
    await addAgent(server, user, agent.agentId);
    expect(
      (await call(server, 'GET', `/keys/${agent.agentId}`, { token: user.accessToken })).data,
    ).toMatchObject({
      id: agent.agentId,
      public_key: toBase64(agent.keys.encryption.publicKey),
      signing_public_key: toBase64(agent.keys.signing.publicKey),
    });
    expect((await call(server, 'GET', `/keys/${user.userId}`, { token: agent.token })).data).toMatchObject({
      id: user.userId,
      kind: 'user',
      public_key: toBase64(user.keys.encryption.publicKey),
      signing_public_key: toBase64(user.keys.signing.publicKey),
    });
  });

  it('AGENT_PUBKEY_NOT_FOUND for an agent without keys (its owner may look)', async () => {
    const agent = await createTestAgent(server, owner, { register: false });
    expectError(
      await call(server, 'GET', `/keys/${agent.agentId}`, { token: owner.accessToken }),
      404,
      'AGENT_PUBKEY_NOT_FOUND',
    );
  });

  it('the system sender’s keys are public: GET /system/keys and GET /keys/system', async () => {
    const pub = await call(server, 'GET', '/system/keys');
    expect(pub.data).toMatchObject({ id: 'system', kind: 'system', public_key: expect.any(String) });
    expect((await call(server, 'GET', '/keys/system', { token: owner.accessToken })).data).toEqual(pub.data);
  });
});
