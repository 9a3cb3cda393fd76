import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_TOKEN_PATTERN } from '../../../packages/sdk/src/core/protocol/agent-token.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import {
  connectAgent,
  createTestAgent,
  createTestUser,
  openAs,
  startAgentServer,
  systemSigningKey,
} from '../../helpers/server-agents.js';
import { call, expectError } from '../../helpers/server-http.js';

let server: ReferenceServer;

beforeAll(async () => {
  server = await startAgentServer();
});
afterAll(() => server.close());

describe('control API, part 2', () => {
  it('POST /_control/agents creates an agent for a user; GET shows its state', async () => {
    const user = await createTestUser(server, false);
    const res = await call(server, 'POST', '/_control/agents', {
      json: { owner_id: user.userId, name: 'Ctl' },
    });
    expect(res.status, res.text).toBe(201);
    expect(String(res.data['token'])).toMatch(AGENT_TOKEN_PATTERN);
    const view = await call(server, 'GET', `/_control/agents/${String(res.data['agent_id'])}`);
    expect(view.data).toMatchObject({ name: 'Ctl', owner_id: user.userId, delivery_mode: 'websocket' });
    expectError(
      await call(server, 'POST', '/_control/agents', { json: { owner_id: 'nobody' } }),
      404,
      'NOT_FOUND',
    );
    expectError(await call(server, 'GET', '/_control/agents/nope'), 404, 'AGENT_NOT_FOUND');
  });

  it('POST /_control/users/access-token acts as a user', async () => {
    const user = await createTestUser(server, false);
    const res = await call(server, 'POST', '/_control/users/access-token', {
      json: { user_id: user.userId },
    });
    expect(res.data).toMatchObject({ user_id: user.userId, access_token: expect.any(String) });
    const devices = await call(server, 'GET', '/users/me/devices', {
      token: String(res.data['access_token']),
    });
    expect(devices.status).toBe(200);
  });

  it('PUT /_control/agents/:id/webhook registers with a chosen secret (≥ 32 bytes) and closes the WebSocket', async () => {
    const owner = await createTestUser(server);
    const agent = await createTestAgent(server, owner);
    const probe = await connectAgent(server, agent);
    const secret = Buffer.alloc(32, 9).toString('base64');
    const res = await call(server, 'PUT', `/_control/agents/${agent.agentId}/webhook`, {
      json: { url: 'http://127.0.0.1:9/wh', secret },
    });
    expect(res.data).toEqual({ agent_id: agent.agentId, url: 'http://127.0.0.1:9/wh', secret });
    expect((await probe.waitClosed()).code).toBe(4013);
    const short = await call(server, 'PUT', `/_control/agents/${agent.agentId}/webhook`, {
      json: { url: 'http://127.0.0.1:9/wh', secret: Buffer.alloc(31).toString('base64') },
    });
    expectError(short, 400, 'VALIDATION_ERROR');
    for (const url of ['ftp://x/y', 'http://user:pw@host/x', 'not a url', 'http://h/x#frag']) {
      expectError(
        await call(server, 'PUT', `/_control/agents/${agent.agentId}/webhook`, { json: { url } }),
        400,
        'VALIDATION_ERROR',
      );
    }
    // WebSocket-only events are never handed to the webhook path.
    expect(await server.control.sendSystemEvent(agent.agentId, 'reaction.update', { emoji: 'x' })).toBe(
      'not_connected',
    );
    expect((await server.control.agent(agent.agentId))?.pending_count).toBe(0);
    expect((await call(server, 'DELETE', `/_control/agents/${agent.agentId}/webhook`)).data).toEqual({
      agent_id: agent.agentId,
      url: null,
    });
  });

  it('POST /_control/agents/:id/events seals any event from the system sender', async () => {
    const owner = await createTestUser(server);
    const agent = await createTestAgent(server, owner);
    const probe = await connectAgent(server, agent);
    const res = await call(server, 'POST', `/_control/agents/${agent.agentId}/events`, {
      json: { type: 'reaction.update', payload: { emoji: '👍' } },
    });
    expect(res.data).toEqual({ outcome: 'sent' });
    const frame = await probe.next();
    expect(frame).toMatchObject({
      type: 'reaction.update',
      metadata: { sender_id: 'system', conversation_id: 'system' },
    });
    const opened = openAs(
      String(frame['wire_envelope']),
      { id: agent.agentId, keys: agent.keys },
      await systemSigningKey(server),
    );
    expect(opened.payload).toEqual({ type: 'reaction.update', emoji: '👍' });
    const bare = await createTestAgent(server, owner, { register: false });
    expect(
      (await call(server, 'POST', `/_control/agents/${bare.agentId}/events`, { json: { type: 'x.y' } })).data,
    ).toEqual({ outcome: 'no_keys' });
    probe.close();
  });

  it('is absent without dev mode', async () => {
    const prod = await startAgentServer({ dev: false });
    try {
      expectError(
        await call(prod, 'POST', '/_control/agents', { json: { owner_id: 'x' } }),
        404,
        'NOT_FOUND',
      );
    } finally {
      await prod.close();
    }
  });
});
