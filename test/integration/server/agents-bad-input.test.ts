/**
 * Bad input on every part-2 endpoint: always a 4xx with a documented code,
 * never a 500, never a stack trace.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import {
  addAgent,
  createTestAgent,
  createTestUser,
  proofFor,
  sealAs,
  startAgentServer,
  type TestAgent,
  type TestUser,
} from '../../helpers/server-agents.js';
import { call, expectError } from '../../helpers/server-http.js';

let server: ReferenceServer;
let user: TestUser;
let agent: TestAgent;
/** Token regeneration is fuzzed on an agent of its own: a valid body rotates its token. */
let victim: TestAgent;
let conversationId: string;

interface Endpoint {
  readonly label: string;
  readonly method: string;
  readonly path: () => string;
  readonly auth: 'user' | 'agent' | 'none';
  readonly body: () => Promise<Record<string, unknown>> | Record<string, unknown>;
}

const ENDPOINTS: Endpoint[] = [
  {
    label: 'POST /agents',
    method: 'POST',
    path: () => '/agents',
    auth: 'user',
    body: () => ({ name: 'Fuzz' }),
  },
  {
    label: 'POST /agents/:id/token/regenerate',
    method: 'POST',
    path: () => `/agents/${victim.agentId}/token/regenerate`,
    auth: 'user',
    body: () => ({ emergency: false }),
  },
  {
    label: 'PUT /agents/:id/keys',
    method: 'PUT',
    path: () => `/agents/${agent.agentId}/keys`,
    auth: 'agent',
    body: () => proofFor(server, agent.agentId, agent.token, agent.keys).then((p) => ({ ...p })),
  },
  {
    label: 'POST /agents/:id/keys/check',
    method: 'POST',
    path: () => `/agents/${agent.agentId}/keys/check`,
    auth: 'agent',
    body: () => proofFor(server, agent.agentId, agent.token, agent.keys).then((p) => ({ ...p })),
  },
  {
    label: 'POST /conversations',
    method: 'POST',
    path: () => '/conversations',
    auth: 'user',
    body: () => ({ agent_id: agent.agentId }),
  },
  {
    label: 'POST /conversations/:id/messages',
    method: 'POST',
    path: () => `/conversations/${conversationId}/messages`,
    auth: 'user',
    body: () => ({
      wire_envelope: sealAs(
        { id: user.userId, keys: user.keys },
        [{ id: agent.agentId, keys: agent.keys }],
        conversationId,
        {
          type: 'text',
          text: 'x',
        },
      ),
    }),
  },
  {
    label: 'POST /agents/:id/messages',
    method: 'POST',
    path: () => `/agents/${agent.agentId}/messages`,
    auth: 'agent',
    body: () => ({
      conversation_id: conversationId,
      wire_envelope: sealAs(
        { id: agent.agentId, keys: agent.keys },
        [{ id: user.userId, keys: user.keys }],
        conversationId,
        { type: 'text', text: 'x' },
      ),
    }),
  },
  {
    label: 'PUT /agents/:id/webhook',
    method: 'PUT',
    path: () => `/agents/${agent.agentId}/webhook`,
    auth: 'user',
    body: () => ({ url: 'http://127.0.0.1:9/h' }),
  },
  {
    label: 'POST /_control/agents',
    method: 'POST',
    path: () => '/_control/agents',
    auth: 'none',
    body: () => ({ owner_id: user.userId }),
  },
  {
    label: 'PUT /_control/agents/:id/governance',
    method: 'PUT',
    path: () => `/_control/agents/${agent.agentId}/governance`,
    auth: 'none',
    body: () => ({ level: 'none' }),
  },
  {
    label: 'PUT /_control/agents/:id/webhook',
    method: 'PUT',
    path: () => `/_control/agents/${agent.agentId}/webhook`,
    auth: 'none',
    body: () => ({ url: 'http://127.0.0.1:9/h' }),
  },
  {
    label: 'POST /_control/agents/:id/events',
    method: 'POST',
    path: () => `/_control/agents/${agent.agentId}/events`,
    auth: 'none',
    body: () => ({ type: 'x.y' }),
  },
  {
    label: 'POST /_control/users/access-token',
    method: 'POST',
    path: () => '/_control/users/access-token',
    auth: 'none',
    body: () => ({ user_id: user.userId }),
  },
];

const GETS = [
  (id: string) => `/agents/${id}`,
  (id: string) => `/keys/${id}`,
  (id: string) => `/conversations/${id}`,
  (id: string) => `/conversations/${id}/messages`,
  (id: string) => `/agents/${id}/governance`,
  (id: string) => `/agents/${id}/conversations`,
  (id: string) => `/agents/${id}/keys/challenge`,
  (id: string) => `/_control/agents/${id}`,
];

beforeAll(async () => {
  server = await startAgentServer();
  user = await createTestUser(server);
  agent = await createTestAgent(server, user);
  victim = await createTestAgent(server, user, { register: false });
  conversationId = await addAgent(server, user, agent.agentId);
});
afterAll(() => server.close());

function tokenFor(e: Endpoint): { token?: string } {
  if (e.auth === 'user') return { token: user.accessToken };
  if (e.auth === 'agent') return { token: agent.token };
  return {};
}

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

describe.each(ENDPOINTS)('$label (bad bodies)', (endpoint) => {
  const send = (json: unknown, raw?: string) =>
    call(server, endpoint.method, endpoint.path(), {
      ...tokenFor(endpoint),
      ...(raw === undefined ? { json } : { raw, contentType: 'application/json' }),
    });

  it('missing, wrong-typed and unknown fields are VALIDATION_ERROR naming the field', async () => {
    const good = await endpoint.body();
    expectClientError(await send(undefined, ''));
    for (const field of Object.keys(good)) {
      const { [field]: _dropped, ...rest } = good;
      const res = await send(rest);
      if (res.status === 429) continue;
      expect(expectError(res, 400, 'VALIDATION_ERROR').params, field).toMatchObject({ field });
      for (const wrong of [12345, true, null, ['x'], { nested: 1 }].filter(
        (w) => typeof w !== typeof good[field],
      )) {
        const bad = await send({ ...good, [field]: wrong });
        expectClientError(bad);
      }
    }
    const extra = await send({ ...(await endpoint.body()), surprise: 1 });
    if (extra.status !== 429) {
      expect(expectError(extra, 400, 'VALIDATION_ERROR').params).toMatchObject({ reason: 'unknown_field' });
    }
    expectClientError(await send(undefined, '{"unterminated'));
  });

  it('arbitrary JSON bodies never produce a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 3 }), async (value) => {
        const res = await send(value);
        expect(res.status, res.text).toBeLessThan(500);
        if (res.status >= 400) expectClientError(res);
      }),
      { numRuns: 30 },
    );
  });
});

describe('authentication on part-2 endpoints', () => {
  it.each(ENDPOINTS.filter((e) => e.auth !== 'none'))('$label without a token → 401', async (endpoint) => {
    const res = await call(server, endpoint.method, endpoint.path(), { json: await endpoint.body() });
    expectError(res, 401, 'UNAUTHORIZED');
  });
});

describe('path parameters and queries', () => {
  it('arbitrary ids in paths are a 4xx for user and agent tokens alike', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...GETS),
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.boolean(),
        async (path, id, asAgent) => {
          const res = await call(server, 'GET', path(encodeURIComponent(id)), {
            token: asAgent ? agent.token : user.accessToken,
          });
          expect(res.status, res.text).toBeLessThan(500);
          if (res.status >= 400) expectClientError(res);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('bad inbox queries are VALIDATION_ERROR with bounds', async () => {
    for (const q of ['limit=0', 'limit=201', 'limit=abc', 'after=-1', 'after=1.5', 'limit=1&limit=2']) {
      const res = await call(server, 'GET', `/conversations/${conversationId}/messages?${q}`, {
        token: user.accessToken,
      });
      expectError(res, 400, 'VALIDATION_ERROR');
    }
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 30 }), fc.string({ maxLength: 30 }), async (after, limit) => {
        const qs = new URLSearchParams({ after, limit }).toString();
        const res = await call(server, 'GET', `/conversations/${conversationId}/messages?${qs}`, {
          token: agent.token,
        });
        expect(res.status, res.text).toBeLessThan(500);
      }),
      { numRuns: 60 },
    );
  });

  it('arbitrary agent WebSocket auth frames never crash the hub', async () => {
    const { WsProbe } = await import('../../helpers/server-ws.js');
    await fc.assert(
      fc.asyncProperty(
        fc.record({ agent_id: fc.jsonValue({ maxDepth: 1 }), token: fc.jsonValue({ maxDepth: 1 }) }),
        async (fields) => {
          const probe = await WsProbe.open(server.wsUrl);
          probe.send({ type: 'auth', ...fields });
          const answer = await probe.next();
          expect(answer['type']).toBe('auth.error');
          expect(['invalid_frame', 'invalid_token']).toContain(answer['reason']);
          await probe.waitClosed();
        },
      ),
      { numRuns: 25 },
    );
  });
});
