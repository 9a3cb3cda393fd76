/**
 * Terminal conditions stop the agent for good: suspended, banned, deleted,
 * invalid and emergency-rotated tokens never reconnect (connection attempts
 * are counted), and each surfaces as a typed `fatal`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, GovernanceEvent } from '../../../packages/sdk/src/agent/index.js';
import type { FatalInfo } from '../../../packages/sdk/src/transport/ws/index.js';
import type { AmsError } from '../../../packages/sdk/src/core/errors/index.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { MemoryKeyStore } from '../../../packages/sdk/src/crypto/index.js';
import { call } from '../../helpers/server-http.js';
import { countingWebSocket } from '../../helpers/transport-ws.js';
import {
  createAccount,
  FAST_RECONNECT,
  newAgent,
  recordingLogger,
  startWorld,
  waitFor,
  UserSide,
  type AgentAccount,
} from '../../helpers/agent-world.js';

let server: ReferenceServer;
beforeAll(async () => {
  server = await startWorld();
});
afterAll(() => server.close());

interface Watched {
  agent: Agent;
  sockets: ReturnType<typeof countingWebSocket>;
  fatal: [AmsError, FatalInfo | undefined][];
  reconnecting: number;
  log: ReturnType<typeof recordingLogger>;
}

async function connected(account: AgentAccount): Promise<Watched> {
  const sockets = countingWebSocket();
  const log = recordingLogger();
  const agent = newAgent(server, account, { WebSocket: sockets.ctor, logger: log });
  const w: Watched = { agent, sockets, fatal: [], reconnecting: 0, log };
  agent.on('fatal', (err, info) => void w.fatal.push([err, info]));
  agent.on('reconnecting', () => void (w.reconnecting += 1));
  await agent.connect();
  return w;
}

/** Waits longer than several back-off ceilings, then checks no socket was opened since. */
async function expectNoReconnect(w: Watched, sockets: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, FAST_RECONNECT.capMs * 4));
  expect(w.sockets.created()).toBe(sockets);
  expect(w.reconnecting).toBe(0);
  expect(w.agent.state).toBe('fatal');
}

/** Nothing secret in what the agent logged or raised. */
function expectNoSecrets(w: Watched, account: AgentAccount): void {
  const text = [...w.log.lines, ...w.fatal.map(([e]) => JSON.stringify(e.toJSON()) + e.message)].join('\n');
  expect(text).not.toContain(account.token);
  expect(text).not.toMatch(/hsk_[A-Za-z0-9]{40}/);
}

describe('terminal conditions never reconnect', () => {
  it('suspended (L2): agent.governance reaches the handler, then fatal AGENT_SUSPENDED', async () => {
    const account = await createAccount(server);
    const w = await connected(account);
    const gov: GovernanceEvent[] = [];
    w.agent.on('agent.governance', (e) => void gov.push(e));
    await server.control.setGovernance(account.agentId, 'L2', 'too many reports');
    await waitFor(() => w.fatal.length === 1, 'fatal');
    expect(w.fatal[0]![0].code).toBe('AGENT_SUSPENDED');
    expect(w.fatal[0]![1]?.closeCode).toBe(4010);
    await waitFor(() => gov.length === 1, 'the governance event');
    expect(gov[0]).toMatchObject({ level: 'L2', reason: 'too many reports', sealed: false });
    await expectNoReconnect(w, 1);
    expectNoSecrets(w, account);
    await w.agent.close();
  });

  it('banned (L3): fatal AGENT_BANNED; a new connect() is refused without opening a socket', async () => {
    const account = await createAccount(server);
    const w = await connected(account);
    await server.control.setGovernance(account.agentId, 'L3', null);
    await waitFor(() => w.fatal.length === 1, 'fatal');
    expect(w.fatal[0]![0].code).toBe('AGENT_BANNED');
    await expectNoReconnect(w, 1);
    await w.agent.close();
    const again = await connected(account).catch((err: AmsError) => err);
    expect((again as AmsError).code).toBe('AGENT_BANNED');
  });

  it('token deleted: fatal AGENT_TOKEN_INVALID (close 4005)', async () => {
    const account = await createAccount(server);
    const w = await connected(account);
    const res = await call(server, 'DELETE', `/agents/${account.agentId}/token`, {
      token: account.owner.accessToken,
    });
    expect(res.status, res.text).toBe(200);
    await waitFor(() => w.fatal.length === 1, 'fatal');
    expect(w.fatal[0]![0].code).toBe('AGENT_TOKEN_INVALID');
    expect(w.fatal[0]![1]?.closeCode).toBe(4005);
    await expectNoReconnect(w, 1);
    expectNoSecrets(w, account);
    await w.agent.close();
  });

  it('emergency regeneration cuts the connection at once: fatal, no reconnect', async () => {
    const account = await createAccount(server);
    const w = await connected(account);
    const res = await call(server, 'POST', `/agents/${account.agentId}/token/regenerate`, {
      token: account.owner.accessToken,
      json: { emergency: true },
    });
    expect(res.status, res.text).toBe(200);
    await waitFor(() => w.fatal.length === 1, 'fatal');
    expect(w.fatal[0]![0].code).toBe('AGENT_TOKEN_INVALID');
    await expectNoReconnect(w, 1);
    await w.agent.close();
  });

  it('after an emergency regeneration, renewToken(new token) brings the stopped agent back (issue #28)', async () => {
    const account = await createAccount(server);
    const w = await connected(account);
    const handled: string[] = [];
    w.agent.on('message.new', (m) => void handled.push(m.text ?? ''));
    const res = await call(server, 'POST', `/agents/${account.agentId}/token/regenerate`, {
      token: account.owner.accessToken,
      json: { emergency: true },
    });
    expect(res.status, res.text).toBe(200);
    await waitFor(() => w.fatal.length === 1, 'fatal');
    expect(w.agent.state).toBe('fatal');

    await w.agent.renewToken(String(res.data['token']));
    expect(w.agent.state).toBe('running');
    expect(w.sockets.created()).toBe(2); // one new connection, with the new token
    const user = new UserSide(server, account.owner, account.agentId);
    await user.addAgent();
    await user.send({ type: 'text', text: 'after the emergency' });
    await waitFor(() => handled.includes('after the emergency'), 'the message after renewToken');
    await w.agent.close();
  });

  it('renewToken on an agent stopped for another reason (banned) leaves it stopped', async () => {
    const account = await createAccount(server);
    const w = await connected(account);
    await server.control.setGovernance(account.agentId, 'L3', null);
    await waitFor(() => w.fatal.length === 1, 'fatal');
    await w.agent.renewToken(`hsk_${'B'.repeat(40)}`).catch(() => undefined);
    expect(w.agent.state).toBe('fatal');
    await w.agent.close();
  });

  it('an invalid token: connect() rejects with AGENT_TOKEN_INVALID, fatal once, no socket at all', async () => {
    const account = await createAccount(server);
    const wrong = { ...account, token: `hsk_${'A'.repeat(40)}` };
    const sockets = countingWebSocket();
    const log = recordingLogger();
    const agent = newAgent(server, wrong, { WebSocket: sockets.ctor, logger: log });
    const fatal: AmsError[] = [];
    agent.on('fatal', (err) => void fatal.push(err));
    await expect(agent.connect()).rejects.toMatchObject({ code: 'AGENT_TOKEN_INVALID' });
    expect(fatal.map((e) => e.code)).toEqual(['AGENT_TOKEN_INVALID']);
    expect(agent.state).toBe('fatal');
    await new Promise((resolve) => setTimeout(resolve, FAST_RECONNECT.capMs * 4));
    expect(sockets.created()).toBe(0);
    expect(log.lines.join('\n')).not.toContain(wrong.token);
  });
  describe('copies of one agent (issue #25)', () => {
    it('an exclusive second copy takes over: the first stops for good with TRANSPORT_REPLACED, not live any more', async () => {
      const account = await createAccount(server);
      const keyStore = new MemoryKeyStore();
      const first = newAgent(server, account, { keyStore, logger: recordingLogger() });
      const fatal: AmsError[] = [];
      first.on('fatal', (err) => void fatal.push(err));
      await first.connect();
      expect(first.health()).toEqual({ live: true, ready: true, state: 'running' });
      const second = newAgent(server, account, { keyStore, logger: recordingLogger() });
      await second.connect();
      await waitFor(() => fatal.length === 1, 'the first copy to stop for good');
      expect(fatal[0]!.code).toBe('TRANSPORT_REPLACED');
      expect(first.health()).toEqual({ live: false, ready: false, state: 'fatal' });
      await second.close();
    });

    it('shared copies stay connected side by side; drain() takes one out: not ready, then closed', async () => {
      const account = await createAccount(server);
      const keyStore = new MemoryKeyStore();
      const copies = [0, 1].map(() =>
        newAgent(server, account, { keyStore, copies: 'shared', logger: recordingLogger() }),
      );
      const fatal: AmsError[] = [];
      for (const c of copies) c.on('fatal', (err) => void fatal.push(err));
      for (const c of copies) await c.connect();
      const view = await server.control.agent(account.agentId);
      expect(view?.pending_count).toBe(0);
      expect(copies.map((c) => c.health().ready)).toEqual([true, true]);
      const drained = copies[0]!.drain({ timeoutMs: 1_000 });
      expect(copies[0]!.health()).toMatchObject({ live: true, ready: false, state: 'closing' });
      expect(await drained).toMatchObject({ drained: true });
      expect(copies[0]!.health()).toEqual({ live: false, ready: false, state: 'closed' });
      expect(copies[1]!.health().ready).toBe(true);
      expect(fatal).toEqual([]);
      await copies[1]!.close();
    });
  });
});
