/**
 * Acknowledged WebSocket delivery against the reference server: what the
 * server logs and counts, what a raw agent connection sees, and an Agent
 * talking to a service without acks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { createMemoryDedupStore } from '../../../packages/sdk/src/webhook/dedup/memory.js';
import type { DedupStore } from '../../../packages/sdk/src/webhook/dedup/types.js';
import {
  createAccount,
  gate,
  newAgent,
  recordingLogger,
  startWorld,
  UserSide,
  waitFor,
} from '../../helpers/agent-world.js';
import {
  addAgent,
  agentSocket,
  createTestAgent,
  createTestUser,
  nextOfType,
  type TestAgent,
} from '../../helpers/server-agents.js';
import { call } from '../../helpers/server-http.js';

let server: ReferenceServer;
beforeAll(async () => {
  server = await startWorld({ wsAck: { timeoutMs: 400, maxAttempts: 3 } });
});
afterAll(() => server.close());

/** A registered agent and its owner; `link()` makes the owner add it (a `relation.established`). */
async function rawAccount(): Promise<TestAgent & { link: () => Promise<string> }> {
  const owner = await createTestUser(server);
  const agent = await createTestAgent(server, owner);
  return { ...agent, link: () => addAgent(server, owner, agent.agentId) };
}

async function pending(agentId: string): Promise<number> {
  return Number((await server.control.agent(agentId))?.pending_count);
}

async function deliveryLogs(account: { agentId: string; token: string }): Promise<Record<string, unknown>[]> {
  const res = await call(server, 'GET', `/agents/${account.agentId}/delivery-logs?limit=50`, {
    token: account.token,
  });
  expect(res.status).toBe(200);
  return res.data as unknown as Record<string, unknown>[];
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('acknowledged WebSocket delivery', () => {
  it('auth.ok grants acks to an agent that asks; a delivery is pending until the handler finished', async () => {
    const account = await createAccount(server);
    const agent = newAgent(server, account);
    const g = gate();
    const seen: string[] = [];
    agent.on('message.new', async (m) => {
      seen.push(m.text ?? '');
      await g.promise;
    });
    await agent.connect();
    const side = new UserSide(server, account.owner, account.agentId);
    await side.addAgent();
    await until(async () => (await pending(account.agentId)) === 0, 'relation.established acknowledged');
    await side.send({ type: 'text', text: 'hello' });
    await waitFor(() => seen.length === 1, 'the handler to start');
    expect(await pending(account.agentId)).toBe(1);
    const logsBefore = await deliveryLogs(account);
    expect(logsBefore.filter((e) => e.event_type === 'message.new')).toEqual([]);
    g.open();
    await waitFor(() => agent.stats().acked >= 2, 'the acks');
    await until(async () => (await pending(account.agentId)) === 0, 'the service to count the ack');
    const logs = await deliveryLogs(account);
    expect(logs.find((e) => e.event_type === 'message.new')).toMatchObject({
      final_status: 'delivered',
      attempt_count: 1,
    });
    await agent.close();
  });

  it('a raw connection: events carry delivery_id, an ack frame settles them, bad ack frames are refused', async () => {
    const account = await rawAccount();
    const { probe, answer } = await agentSocket(server, account, { ack: true });
    expect(answer).toEqual({ type: 'auth.ok', ack: { window: 256, timeout_ms: 400 } });
    await account.link();
    const established = await nextOfType(probe, 'relation.established');
    expect(typeof established['delivery_id']).toBe('string');
    for (const bad of [
      { type: 'ack' },
      { type: 'ack', delivery_ids: [] },
      { type: 'ack', delivery_ids: [42] },
      { type: 'ack', delivery_ids: ['x'.repeat(65)] },
      { type: 'ack', delivery_ids: Array.from({ length: 1001 }, (_, i) => `id-${i}`) },
    ]) {
      probe.send(bad);
      expect(await nextOfType(probe, 'error')).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
    }
    expect(await pending(account.agentId)).toBe(1);
    probe.send({ type: 'ack', delivery_ids: [established['delivery_id']] });
    await until(async () => (await pending(account.agentId)) === 0, 'the ack');
    probe.close();
  });

  it('an unacknowledged delivery is sent again on the same connection, then given up after maxAttempts', async () => {
    const account = await rawAccount();
    const { probe } = await agentSocket(server, account, { ack: true });
    await account.link();
    const first = await nextOfType(probe, 'relation.established');
    const again = await nextOfType(probe, 'relation.established');
    expect(again).toMatchObject({ delivery_id: first['delivery_id'], redelivered: true });
    await nextOfType(probe, 'relation.established');
    await until(async () => (await pending(account.agentId)) === 0, 'the delivery to be given up');
    const logs = await deliveryLogs(account);
    expect(logs[0]).toMatchObject({ final_status: 'failed', error_class: 'ack_timeout', attempt_count: 3 });
    probe.close();
  });

  it('a connection that never asked for acks is served as before: delivered once written', async () => {
    const account = await rawAccount();
    const { probe, answer } = await agentSocket(server, account);
    expect(answer).toEqual({ type: 'auth.ok' });
    await account.link();
    await nextOfType(probe, 'relation.established');
    expect(await pending(account.agentId)).toBe(0);
    probe.send({ type: 'ack', delivery_ids: ['0195523b-0000-4000-8000-000000000001'] });
    expect(await nextOfType(probe, 'error')).toMatchObject({
      error: { code: 'VALIDATION_ERROR', params: { reason: 'ack_not_negotiated' } },
    });
    probe.close();
  });
});

describe('an Agent and a service without acks', () => {
  it('says so once in the log and handles messages as before', async () => {
    const legacy = await startWorld({ wsAcks: false });
    try {
      const account = await createAccount(legacy);
      const logger = recordingLogger();
      const agent = newAgent(legacy, account, { logger });
      const texts: string[] = [];
      agent.on('message.new', (m) => void texts.push(m.text ?? ''));
      await agent.connect();
      const side = new UserSide(legacy, account.owner, account.agentId);
      await side.addAgent();
      await side.send({ type: 'text', text: 'one' });
      await waitFor(() => texts.length === 1, 'the message');
      expect(agent.stats().acked).toBe(0);
      expect(logger.lines.filter((l) => l.includes('does not acknowledge'))).toHaveLength(1);
      await agent.close();
    } finally {
      await legacy.close();
    }
  });
});

describe('a handler that never finishes', () => {
  it('holds only its conversation: the others are handled and acknowledged, and its stuck events leave the window after maxAttempts', async () => {
    const small = await startWorld({ wsAck: { window: 2, timeoutMs: 200, maxAttempts: 2 } });
    try {
      const account = await createAccount(small);
      const agent = newAgent(small, account);
      const stuck = gate();
      const handled: string[] = [];
      agent.on('message.new', async (m) => {
        handled.push(m.text ?? '');
        if ((m.text ?? '').startsWith('A')) await stuck.promise;
      });
      await agent.connect();
      const a = new UserSide(small, account.owner, account.agentId);
      await a.addAgent();
      const b = new UserSide(small, await createTestUser(small), account.agentId);
      await b.addAgent();
      await a.send({ type: 'text', text: 'A1' });
      await a.send({ type: 'text', text: 'A2' });
      for (const text of ['B1', 'B2', 'B3']) await b.send({ type: 'text', text });
      await waitFor(() => handled.filter((t) => t.startsWith('B')).length === 3, 'conversation B', 15_000);
      expect(handled.filter((t) => t.startsWith('B'))).toEqual(['B1', 'B2', 'B3']);
      expect(handled.filter((t) => t.startsWith('A'))).toEqual(['A1']);
      stuck.open();
      await waitFor(() => handled.includes('A2'), 'A2 once A1 finished');
      await agent.close();
    } finally {
      await small.close();
    }
  });
});

describe('a de-duplication store that cannot answer', () => {
  it('never lets a handler run unclaimed: the event is not acknowledged, comes again, and is handled once', async () => {
    const account = await createAccount(server);
    const inner = createMemoryDedupStore();
    let down = false;
    const flaky: DedupStore = {
      claim: (key, leaseMs) => (down ? Promise.reject(new Error('store down')) : inner.claim(key, leaseMs)),
      complete: (key, token) => inner.complete(key, token),
      release: (key, token) => inner.release(key, token),
    };
    const agent = newAgent(server, account, { dedupStore: flaky });
    const texts: string[] = [];
    agent.on('message.new', (m) => void texts.push(m.text ?? ''));
    await agent.connect();
    const side = new UserSide(server, account.owner, account.agentId);
    await side.addAgent();
    await until(async () => (await pending(account.agentId)) === 0, 'relation.established acknowledged');
    down = true;
    await side.send({ type: 'text', text: 'while the store is down' });
    await waitFor(() => agent.stats().deferred >= 1, 'the event to be deferred');
    expect(texts).toEqual([]);
    expect(await pending(account.agentId)).toBe(1);
    down = false;
    await waitFor(() => texts.length === 1, 'the redelivery after the ack timeout');
    await until(async () => (await pending(account.agentId)) === 0, 'the acks');
    expect(texts).toEqual(['while the store is down']);
    await agent.close();
  });
});
