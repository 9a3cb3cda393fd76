import WebSocket from 'ws';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WS_CLOSE_CODES } from '../../../packages/sdk/src/core/protocol/ws-close.js';
import { keyFingerprint, generateKeys } from '../../../packages/sdk/src/crypto/index.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import {
  agentSocket,
  connectAgent,
  createTestAgent,
  createTestUser,
  registerKeys,
  startAgentServer,
  type TestUser,
} from '../../helpers/server-agents.js';
import { call } from '../../helpers/server-http.js';
import { WsProbe } from '../../helpers/server-ws.js';

const DAY = 86_400_000;
let server: ReferenceServer;
let owner: TestUser;

beforeAll(async () => {
  server = await startAgentServer();
});
afterAll(() => server.close());
beforeEach(async () => {
  owner = await createTestUser(server, false);
});

const regenerate = (agentId: string, emergency: boolean) =>
  call(server, 'POST', `/agents/${agentId}/token/regenerate`, {
    token: owner.accessToken,
    json: { emergency },
  });

describe('agent WebSocket authentication', () => {
  it('{ type: auth, agent_id, token } → auth.ok', async () => {
    const agent = await createTestAgent(server, owner, { register: false });
    const probe = await connectAgent(server, agent);
    expect(probe.isOpen).toBe(true);
    probe.close();
  });

  it('a wrong token, or another agent’s token → auth.error invalid_token, close 4001', async () => {
    const a = await createTestAgent(server, owner, { register: false });
    const b = await createTestAgent(server, owner, { register: false });
    for (const attempt of [
      { agentId: a.agentId, token: `hsk_${'z'.repeat(40)}` },
      { agentId: a.agentId, token: 'not-a-token' },
      { agentId: a.agentId, token: b.token },
    ]) {
      const { probe, answer } = await agentSocket(server, attempt);
      expect(answer).toEqual({ type: 'auth.error', reason: 'invalid_token' });
      expect((await probe.waitClosed()).code).toBe(WS_CLOSE_CODES.AUTH_FAILED);
    }
  });

  it.each([[{ agent_id: 5, token: 'x' }], [{ agent_id: 'a' }], [{ agent_id: 'a', token: '' }]])(
    'an auth frame with bad fields (%j) → invalid_frame',
    async (fields) => {
      const probe = await WsProbe.open(server.wsUrl);
      probe.send({ type: 'auth', ...fields });
      expect(await probe.next()).toEqual({ type: 'auth.error', reason: 'invalid_frame' });
      expect((await probe.waitClosed()).code).toBe(WS_CLOSE_CODES.AUTH_FAILED);
    },
  );

  it('no auth frame within 5 s → auth_timeout, close 4002', async () => {
    const probe = await WsProbe.open(server.wsUrl);
    await probe.settle();
    server.advanceTime(5_000);
    expect(await probe.next()).toEqual({ type: 'auth.error', reason: 'auth_timeout' });
    expect((await probe.waitClosed()).code).toBe(WS_CLOSE_CODES.AUTH_TIMEOUT);
  });

  it('never accepts the agent token in the URL', async () => {
    const agent = await createTestAgent(server, owner, { register: false });
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${server.wsUrl}?token=${agent.token}`);
      ws.on('unexpected-response', (_req, res) => {
        resolve(res.statusCode ?? 0);
        ws.terminate();
      });
      ws.on('error', () => {});
    });
    expect(status).toBe(400);
  });

  it('keys_mismatch when the auth frame names key fingerprints that are not registered', async () => {
    const agent = await createTestAgent(server, owner);
    const other = generateKeys();
    const { probe, answer } = await agentSocket(server, agent, {
      key_id: keyFingerprint(other.encryption.publicKey),
    });
    expect(answer).toEqual({ type: 'auth.error', reason: 'keys_mismatch' });
    expect((await probe.waitClosed()).code).toBe(WS_CLOSE_CODES.AUTH_FAILED);
    const { probe: good, answer: ok } = await agentSocket(server, agent, {
      key_id: keyFingerprint(agent.keys.encryption.publicKey),
      signing_key_id: keyFingerprint(agent.keys.signing.publicKey),
    });
    expect(ok).toEqual({ type: 'auth.ok' });
    good.close();
  });
});

describe('two sockets for one agent', () => {
  it('the newer connection replaces the older (close 4012); events go to the newer', async () => {
    const agent = await createTestAgent(server, owner);
    const first = await connectAgent(server, agent);
    const second = await connectAgent(server, agent);
    expect((await first.waitClosed()).code).toBe(WS_CLOSE_CODES.REPLACED);
    expect(second.isOpen).toBe(true);
    expect(
      await server.control.sendSystemEvent(agent.agentId, 'agent.capability_changed', { accepted: true }),
    ).toBe('queued');
    expect((await second.next()).type).toBe('agent.capability_changed');
    second.close();
  });
});

describe('token regeneration and revocation while connected', () => {
  it('normal regeneration: the old connection keeps working through the grace, then closes 4005', async () => {
    const agent = await createTestAgent(server, owner);
    const probe = await connectAgent(server, agent);
    expect((await regenerate(agent.agentId, false)).status).toBe(200);
    await probe.settle();
    expect(probe.isOpen).toBe(true);
    server.advanceTime(DAY);
    await server.control.sendSystemEvent(agent.agentId, 'agent.capability_changed', { n: 1 });
    expect((await probe.next()).type).toBe('agent.capability_changed');
    server.advanceTime(6 * DAY - 1);
    // 60 s before the grace ends: auth.expiring; the connection is still open.
    expect(await probe.next()).toEqual({ type: 'auth.expiring', expires_in_seconds: 60 });
    expect(probe.isOpen).toBe(true);
    server.advanceTime(1);
    expect(await probe.next()).toEqual({ type: 'auth.error', reason: 'token_revoked' });
    expect((await probe.waitClosed()).code).toBe(WS_CLOSE_CODES.TOKEN_REVOKED);
  });

  it('a connection opened on a token in grace also closes when the grace ends', async () => {
    const agent = await createTestAgent(server, owner);
    expect((await regenerate(agent.agentId, false)).status).toBe(200);
    server.advanceTime(3 * DAY);
    const probe = await connectAgent(server, agent);
    await probe.settle();
    server.advanceTime(4 * DAY);
    expect(await probe.next()).toEqual({ type: 'auth.expiring', expires_in_seconds: 60 });
    expect(await probe.next()).toEqual({ type: 'auth.error', reason: 'token_revoked' });
    expect((await probe.waitClosed()).code).toBe(WS_CLOSE_CODES.TOKEN_REVOKED);
  });

  it('auth.renew with the new token moves the connection onto it (no grace end any more)', async () => {
    const agent = await createTestAgent(server, owner);
    const probe = await connectAgent(server, agent);
    const fresh = String((await regenerate(agent.agentId, false)).data['token']);
    probe.send({ type: 'auth.renew', access_token: `hsk_${'x'.repeat(40)}` });
    expect(await probe.next()).toEqual({ type: 'auth.error', reason: 'invalid_token' });
    probe.send({ type: 'auth.renew', access_token: fresh });
    expect(await probe.next()).toEqual({ type: 'auth.ok' });
    agent.keys = generateKeys();
    expect((await registerKeys(server, agent.agentId, fresh, agent.keys)).status).toBe(201);
    server.advanceTime(8 * DAY);
    await probe.settle();
    expect(probe.isOpen).toBe(true);
    await server.control.sendSystemEvent(agent.agentId, 'agent.capability_changed', { n: 2 });
    expect((await probe.next()).type).toBe('agent.capability_changed');
    probe.close();
  });

  it('emergency regeneration cuts the old connection at once', async () => {
    const agent = await createTestAgent(server, owner);
    const probe = await connectAgent(server, agent);
    const res = await regenerate(agent.agentId, true);
    expect(res.status).toBe(200);
    expect(await probe.next()).toEqual({ type: 'auth.error', reason: 'token_revoked' });
    expect((await probe.waitClosed()).code).toBe(WS_CLOSE_CODES.TOKEN_REVOKED);
    const fresh = await connectAgent(server, { agentId: agent.agentId, token: String(res.data['token']) });
    fresh.close();
  });

  it('DELETE /agents/:id/token forcibly disconnects every connection', async () => {
    const agent = await createTestAgent(server, owner);
    const probe = await connectAgent(server, agent);
    const res = await call(server, 'DELETE', `/agents/${agent.agentId}/token`, { token: owner.accessToken });
    expect(res.data['disconnected']).toBe(1);
    expect((await probe.waitClosed()).code).toBe(WS_CLOSE_CODES.TOKEN_REVOKED);
    const { answer } = await agentSocket(server, agent);
    expect(answer).toEqual({ type: 'auth.error', reason: 'invalid_token' });
  });
});

describe('webhook mode', () => {
  it('registering a webhook closes the WebSocket (4013) and refuses new ones until it is removed', async () => {
    const agent = await createTestAgent(server, owner);
    const probe = await connectAgent(server, agent);
    const hook = await call(server, 'PUT', `/agents/${agent.agentId}/webhook`, {
      token: owner.accessToken,
      json: { url: 'http://127.0.0.1:9/hook' },
    });
    expect(hook.status, hook.text).toBe(200);
    expect(Buffer.from(String(hook.data['secret']), 'base64')).toHaveLength(32);
    expect((await probe.waitClosed()).code).toBe(WS_CLOSE_CODES.WEBHOOK_MODE);
    const refused = await agentSocket(server, agent);
    expect(refused.answer).toEqual({ type: 'auth.error', reason: 'webhook_mode' });
    expect((await refused.probe.waitClosed()).code).toBe(WS_CLOSE_CODES.WEBHOOK_MODE);
    const read = await call(server, 'GET', `/agents/${agent.agentId}/webhook`, { token: owner.accessToken });
    expect(read.data).toEqual({
      agent_id: agent.agentId,
      url: 'http://127.0.0.1:9/hook',
      delivery_mode: 'webhook',
    });
    expect(read.text).not.toContain(String(hook.data['secret']));
    await call(server, 'DELETE', `/agents/${agent.agentId}/webhook`, { token: owner.accessToken });
    const back = await connectAgent(server, agent);
    back.close();
  });
});
