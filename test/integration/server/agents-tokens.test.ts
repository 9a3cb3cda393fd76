import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AGENT_TOKEN_PATTERN } from '../../../packages/sdk/src/core/protocol/agent-token.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import {
  createTestAgent,
  createTestUser,
  startAgentServer,
  type TestUser,
} from '../../helpers/server-agents.js';
import { call, expectError, startTestServer } from '../../helpers/server-http.js';

const DAY = 86_400_000;
let server: ReferenceServer;
let owner: TestUser;

beforeAll(async () => {
  server = await startAgentServer();
});
// Tests move virtual time past the 300 s access-token lifetime: a fresh owner each time.
beforeEach(async () => {
  owner = await createTestUser(server, false);
});
afterAll(() => server.close());

const whoAmI = (agentId: string, token: string) => call(server, 'GET', `/agents/${agentId}`, { token });
const regenerate = (agentId: string, emergency: boolean, token = owner.accessToken) =>
  call(server, 'POST', `/agents/${agentId}/token/regenerate`, { token, json: { emergency } });

describe('creating agents', () => {
  it('POST /agents answers the agent and an hsk_ token shown once; GET never shows it again', async () => {
    const res = await call(server, 'POST', '/agents', { token: owner.accessToken, json: { name: 'Ada' } });
    expect(res.status, res.text).toBe(201);
    expect(String(res.data['token'])).toMatch(AGENT_TOKEN_PATTERN);
    expect(res.data).toMatchObject({
      name: 'Ada',
      owner_id: owner.userId,
      connection_status: 'ready',
      delivery_mode: 'websocket',
      keys: null,
      governance: { level: 'none', reason: null },
      token_status: { active: true, grace_tokens: 0, grace_until: null },
    });
    const id = String(res.data['agent_id']);
    const read = await call(server, 'GET', `/agents/${id}`, { token: owner.accessToken });
    expect(read.status).toBe(200);
    expect(read.text).not.toContain(String(res.data['token']));
    const list = await call(server, 'GET', '/agents', { token: owner.accessToken });
    expect((list.json as { data: { agent_id: string }[] }).data.map((a) => a.agent_id)).toContain(id);
  });

  it('AGENT_LIMIT_EXCEEDED above the configured maximum per user', async () => {
    const small = await startAgentServer({ maxAgentsPerUser: 3 });
    try {
      const user = await createTestUser(small, false);
      for (let i = 0; i < 3; i++) {
        const r = await call(small, 'POST', '/agents', { token: user.accessToken, json: { name: `A${i}` } });
        expect(r.status).toBe(201);
      }
      const res = await call(small, 'POST', '/agents', { token: user.accessToken, json: { name: 'A4' } });
      expect(expectError(res, 403, 'AGENT_LIMIT_EXCEEDED').params).toMatchObject({ max: 3 });
    } finally {
      await small.close();
    }
  });

  it('50 agents per user by default', async () => {
    const user = await createTestUser(server, false);
    for (let i = 0; i < 50; i++) {
      const r = await call(server, 'POST', '/agents', { token: user.accessToken, json: { name: `B${i}` } });
      expect(r.status).toBe(201);
    }
    const res = await call(server, 'POST', '/agents', { token: user.accessToken, json: { name: 'B51' } });
    expect(expectError(res, 403, 'AGENT_LIMIT_EXCEEDED').params).toMatchObject({ max: 50 });
  });

  it("another user's agent is AGENT_NOT_FOUND, like an unknown one", async () => {
    const agent = await createTestAgent(server, owner, { register: false });
    const stranger = await createTestUser(server, false);
    expectError(
      await call(server, 'GET', `/agents/${agent.agentId}`, { token: stranger.accessToken }),
      404,
      'AGENT_NOT_FOUND',
    );
    expectError(await regenerate(agent.agentId, false, stranger.accessToken), 404, 'AGENT_NOT_FOUND');
    expectError(
      await call(server, 'GET', '/agents/nope', { token: owner.accessToken }),
      404,
      'AGENT_NOT_FOUND',
    );
  });
});

describe('agent authentication on REST', () => {
  it('a valid token reads its own agent; wrong, malformed and missing tokens are refused', async () => {
    const agent = await createTestAgent(server, owner, { register: false });
    expect((await whoAmI(agent.agentId, agent.token)).data['agent_id']).toBe(agent.agentId);
    const wrong = `hsk_${'A'.repeat(40)}`;
    expectError(await whoAmI(agent.agentId, wrong), 401, 'AGENT_TOKEN_INVALID');
    expectError(await whoAmI(agent.agentId, 'hsk_short'), 401, 'AGENT_TOKEN_INVALID');
    expectError(await call(server, 'GET', `/agents/${agent.agentId}/keys/challenge`), 401, 'UNAUTHORIZED');
    // A user token on an agent-only endpoint.
    expectError(
      await call(server, 'GET', `/agents/${agent.agentId}/keys/challenge`, { token: owner.accessToken }),
      401,
      'UNAUTHORIZED',
    );
  });

  it('a token used on another agent’s path is FORBIDDEN', async () => {
    const a = await createTestAgent(server, owner, { register: false });
    const b = await createTestAgent(server, owner, { register: false });
    await whoAmI(a.agentId, a.token); // remembered after the first bcrypt check
    const res = await call(server, 'GET', `/agents/${b.agentId}/keys/challenge`, { token: a.token });
    expect(expectError(res, 403, 'FORBIDDEN').params).toMatchObject({ reason: 'agent_mismatch' });
  });

  it('a token first used on a path that does not name its agent is still recognised', async () => {
    const agent = await createTestAgent(server, owner, { register: false });
    const res = await call(server, 'GET', '/keys/system', { token: agent.token });
    expect(res.status, res.text).toBe(200);
    expectError(
      await call(server, 'GET', '/keys/system', { token: `hsk_${'q'.repeat(40)}` }),
      401,
      'AGENT_TOKEN_INVALID',
    );
  });

  it('bcrypt runs once per token; later calls use the remembered digest', async () => {
    const agent = await createTestAgent(server, owner, { register: false });
    await whoAmI(agent.agentId, agent.token);
    const after = server.control.agentTokenBcryptChecks;
    for (let i = 0; i < 5; i++) expect((await whoAmI(agent.agentId, agent.token)).status).toBe(200);
    expect(server.control.agentTokenBcryptChecks).toBe(after);
  });
});

describe('Agent token lifecycle (spec table)', () => {
  it('active → regenerate (emergency false): new token active; old token valid for 7 days, then invalid', async () => {
    const agent = await createTestAgent(server, owner, { register: false });
    const res = await regenerate(agent.agentId, false);
    expect(res.status, res.text).toBe(200);
    const fresh = String(res.data['token']);
    expect(fresh).toMatch(AGENT_TOKEN_PATTERN);
    expect(fresh).not.toBe(agent.token);
    expect(res.data).toMatchObject({
      emergency: false,
      key_rotation_pending: true,
      previous_token_valid_until: new Date(server.clock.now() + 7 * DAY).toISOString(),
    });
    expect((await whoAmI(agent.agentId, fresh)).status).toBe(200);
    server.advanceTime(7 * DAY - 1);
    expect((await whoAmI(agent.agentId, agent.token)).status).toBe(200);
    server.advanceTime(1);
    expectError(await whoAmI(agent.agentId, agent.token), 401, 'AGENT_TOKEN_INVALID');
    expect((await whoAmI(agent.agentId, fresh)).status).toBe(200);
  });

  it('active → regenerate (emergency true): the old token is invalid at once', async () => {
    const agent = await createTestAgent(server, owner, { register: false });
    await whoAmI(agent.agentId, agent.token);
    const res = await regenerate(agent.agentId, true);
    expect(res.data).toMatchObject({ emergency: true, previous_token_valid_until: null });
    expectError(await whoAmI(agent.agentId, agent.token), 401, 'AGENT_TOKEN_INVALID');
    expect((await whoAmI(agent.agentId, String(res.data['token']))).status).toBe(200);
  });

  it('active → DELETE /agents/:id/token: no token at all', async () => {
    const agent = await createTestAgent(server, owner, { register: false });
    const fresh = String((await regenerate(agent.agentId, false)).data['token']);
    const res = await call(server, 'DELETE', `/agents/${agent.agentId}/token`, { token: owner.accessToken });
    expect(res.data).toMatchObject({ agent_id: agent.agentId, token_revoked: true, disconnected: 0 });
    expectError(await whoAmI(agent.agentId, agent.token), 401, 'AGENT_TOKEN_INVALID');
    expectError(await whoAmI(agent.agentId, fresh), 401, 'AGENT_TOKEN_INVALID');
    const view = await call(server, 'GET', `/agents/${agent.agentId}`, { token: owner.accessToken });
    expect(view.data['token_status']).toEqual({ active: false, grace_tokens: 0, grace_until: null });
  });

  it('regeneration and revocation need the owner’s user token, never the agent token', async () => {
    const agent = await createTestAgent(server, owner, { register: false });
    const res = await regenerate(agent.agentId, false, agent.token);
    expect(expectError(res, 401, 'UNAUTHORIZED').params).toMatchObject({ reason: 'user_token_required' });
    expectError(
      await call(server, 'DELETE', `/agents/${agent.agentId}/token`, { token: agent.token }),
      401,
      'UNAUTHORIZED',
    );
  });

  it('5 regenerations per 24 h: the 6th is 429 TOKEN_ROTATION_RATE_LIMITED with Retry-After', async () => {
    const agent = await createTestAgent(server, owner, { register: false });
    for (let i = 0; i < 5; i++) {
      const r = await regenerate(agent.agentId, false);
      expect(r.status, r.text).toBe(200);
      expect(r.data['regenerations_left']).toBe(4 - i);
      server.advanceTime(30_000);
    }
    const refused = await regenerate(agent.agentId, false);
    const err = expectError(refused, 429, 'TOKEN_ROTATION_RATE_LIMITED');
    const waitMs = DAY - 5 * 30_000;
    expect(err.params).toMatchObject({ retry_after_ms: waitMs });
    expect(refused.headers.get('retry-after')).toBe(String(Math.ceil(waitMs / 1000)));
    server.advanceTime(waitMs - 1);
    const stillRefused = await call(server, 'POST', `/agents/${agent.agentId}/token/regenerate`, {
      token: (await server.control.accessToken(owner.userId)).accessToken,
      json: { emergency: false },
    });
    expectError(stillRefused, 429, 'TOKEN_ROTATION_RATE_LIMITED');
    server.advanceTime(1);
    const fresh = (await server.control.accessToken(owner.userId)).accessToken;
    expect((await regenerate(agent.agentId, false, fresh)).status).toBe(200);
  });
});

describe('production bcrypt cost', () => {
  it('cost 10: the stored hash has cost 10 and a token is bcrypt-checked once end to end', async () => {
    const prod = await startTestServer();
    try {
      const user = await createTestUser(prod, false);
      const res = await call(prod, 'POST', '/agents', { token: user.accessToken, json: { name: 'Prod' } });
      expect(res.status, res.text).toBe(201);
      const id = String(res.data['agent_id']);
      const token = String(res.data['token']);
      expect((await call(prod, 'GET', `/agents/${id}`, { token })).status).toBe(200);
      expect((await call(prod, 'GET', `/agents/${id}`, { token })).status).toBe(200);
      expect(prod.control.agentTokenBcryptChecks).toBe(1);
      expect(await prod.control.agentTokenCost(id)).toBe(10);
    } finally {
      await prod.close();
    }
  });
});
