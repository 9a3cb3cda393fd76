/**
 * The console's service view counts the 429 answers the server gave about an
 * agent (`rate_limit_hits`, `last_rate_limit`): the agent's own sends past
 * 5 per second (MESSAGE_RATE_LIMITED) and its owner's token regenerations past
 * 5 per 24 h (TOKEN_ROTATION_RATE_LIMITED), provoked for real.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { createTestAgent, createTestUser, startAgentServer } from '../../helpers/server-agents.js';
import { call } from '../../helpers/server-http.js';

let server: ReferenceServer;

beforeAll(async () => {
  server = await startAgentServer();
});
afterAll(() => server.close());

const view = async (agentId: string) =>
  (await call(server, 'GET', `/_control/agents/${agentId}/service`)).data;

describe('rate-limit hits in the service view', () => {
  it('a fresh agent has none', async () => {
    const agent = await createTestAgent(server, await createTestUser(server));
    expect(await view(agent.agentId)).toMatchObject({ rate_limit_hits: 0, last_rate_limit: 'none' });
  });

  it('counts MESSAGE_RATE_LIMITED answers to the agent, with the code and server time of the last', async () => {
    const agent = await createTestAgent(server, await createTestUser(server));
    const other = await createTestAgent(server, await createTestUser(server));
    const codes: (string | undefined)[] = [];
    // The rate limit is checked before the body: 5 pass (and fail validation), the rest are 429.
    for (let i = 0; i < 8; i++) {
      const res = await call(server, 'POST', `/agents/${agent.agentId}/messages`, {
        token: agent.token,
        json: {},
      });
      codes.push(res.error?.code);
    }
    expect(codes.filter((c) => c === 'MESSAGE_RATE_LIMITED')).toHaveLength(3);
    const at = new Date(server.clock.now()).toISOString().slice(11, 19);
    expect(await view(agent.agentId)).toMatchObject({
      rate_limit_hits: 3,
      last_rate_limit: `MESSAGE_RATE_LIMITED at ${at}`,
    });
    expect(await view(other.agentId)).toMatchObject({ rate_limit_hits: 0 });
  });

  it("counts the owner's TOKEN_ROTATION_RATE_LIMITED against the agent", async () => {
    const owner = await createTestUser(server);
    const agent = await createTestAgent(server, owner);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await call(server, 'POST', `/agents/${agent.agentId}/token/regenerate`, {
        token: owner.accessToken,
        json: { emergency: false },
      });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.error?.code).toBe('TOKEN_ROTATION_RATE_LIMITED');
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const v = await view(agent.agentId);
    expect(v['rate_limit_hits']).toBe(1);
    expect(String(v['last_rate_limit'])).toMatch(/^TOKEN_ROTATION_RATE_LIMITED at \d\d:\d\d:\d\d$/);
  });
});
