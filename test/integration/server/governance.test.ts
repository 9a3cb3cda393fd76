import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WS_CLOSE_CODES } from '../../../packages/sdk/src/core/protocol/ws-close.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import {
  agentSocket,
  connectAgent,
  createTestAgent,
  createTestUser,
  startAgentServer,
  type TestAgent,
  type TestUser,
} from '../../helpers/server-agents.js';
import { call, expectError } from '../../helpers/server-http.js';

let server: ReferenceServer;
let owner: TestUser;
let agent: TestAgent;

beforeAll(async () => {
  server = await startAgentServer();
});
afterAll(() => server.close());
beforeEach(async () => {
  owner = await createTestUser(server);
  agent = await createTestAgent(server, owner);
});

const governance = (token: string) => call(server, 'GET', `/agents/${agent.agentId}/governance`, { token });

describe('governance levels', () => {
  it('no level: GET /agents/:id/governance → level none, state active, reason null (owner and agent)', async () => {
    for (const token of [owner.accessToken, agent.token]) {
      expect((await governance(token)).data).toMatchObject({
        agent_id: agent.agentId,
        level: 'none',
        state: 'active',
        reason: null,
      });
    }
  });

  it('L1: agent.governance on the WebSocket, which stays open; reads still work', async () => {
    const probe = await connectAgent(server, agent);
    await server.control.setGovernance(agent.agentId, 'L1', 'Too many reports');
    const frame = await probe.next();
    expect(frame).toMatchObject({
      type: 'agent.governance',
      payload: { agent_id: agent.agentId, level: 'L1', reason: 'Too many reports' },
      metadata: { sender_id: 'system' },
      delivery_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7/),
    });
    expect(probe.isOpen).toBe(true);
    expect((await governance(agent.token)).data).toMatchObject({
      level: 'L1',
      state: 'restricted',
      reason: 'Too many reports',
    });
    expect((await call(server, 'GET', `/agents/${agent.agentId}`, { token: agent.token })).status).toBe(200);
    probe.close();
  });

  it.each([
    ['L2', 'AGENT_SUSPENDED', 'agent_suspended', WS_CLOSE_CODES.AGENT_SUSPENDED, 'suspended'],
    ['L3', 'AGENT_BANNED', 'agent_banned', WS_CLOSE_CODES.AGENT_BANNED, 'banned'],
  ] as const)(
    '%s: the WebSocket gets agent.governance and closes; calls get %s',
    async (level, code, reason, close, state) => {
      const probe = await connectAgent(server, agent);
      await server.control.setGovernance(agent.agentId, level, 'Policy violation');
      expect(await probe.next()).toMatchObject({ type: 'agent.governance', payload: { level } });
      expect((await probe.waitClosed()).code).toBe(close);
      const res = await call(server, 'GET', `/agents/${agent.agentId}`, { token: agent.token });
      expect(expectError(res, 403, code).params).toMatchObject({ level, reason: 'Policy violation' });
      // The agent can still read why.
      expect((await governance(agent.token)).data).toMatchObject({
        level,
        state,
        reason: 'Policy violation',
      });
      const again = await agentSocket(server, agent);
      expect(again.answer).toEqual({ type: 'auth.error', reason });
      expect((await again.probe.waitClosed()).code).toBe(close);
      // Users cannot add a suspended or banned agent.
      const user = await createTestUser(server);
      expectError(
        await call(server, 'POST', '/conversations', {
          token: user.accessToken,
          json: { agent_id: agent.agentId },
        }),
        403,
        code,
      );
    },
  );

  it('lifting the level lets the agent back in', async () => {
    await server.control.setGovernance(agent.agentId, 'L2', 'Review');
    expectError(
      await call(server, 'GET', `/agents/${agent.agentId}`, { token: agent.token }),
      403,
      'AGENT_SUSPENDED',
    );
    await server.control.setGovernance(agent.agentId, 'none', null);
    expect((await call(server, 'GET', `/agents/${agent.agentId}`, { token: agent.token })).status).toBe(200);
    const probe = await connectAgent(server, agent);
    probe.close();
  });

  it('over the control API: PUT /_control/agents/:id/governance', async () => {
    const res = await call(server, 'PUT', `/_control/agents/${agent.agentId}/governance`, {
      json: { level: 'L1', reason: 'Manual review' },
    });
    expect(res.data).toMatchObject({ level: 'L1', state: 'restricted', reason: 'Manual review' });
    expectError(
      await call(server, 'PUT', '/_control/agents/nope/governance', { json: { level: 'L1' } }),
      404,
      'NOT_FOUND',
    );
  });
});
