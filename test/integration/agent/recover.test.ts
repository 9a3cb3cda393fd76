/**
 * unreachable → auto-recover → pending flushed in order: the agent's webhook
 * failed every attempt of the retry schedule (virtual time), events queued,
 * the owner went back to WebSocket mode; on connect the Agent finds itself
 * `unreachable`, recovers, and handles the queue in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyAgentEvent, ExpiredEvents } from '../../../packages/sdk/src/agent/index.js';
import { KeyRing, MemoryKeyStore } from '../../../packages/sdk/src/crypto/index.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { answer, startScriptedReceiver, type ScriptedReceiver } from '../../helpers/server-receiver.js';
import { createTestAgent, createTestUser } from '../../helpers/server-agents.js';
import { newAgent, recordingLogger, startWorld, UserSide, waitFor } from '../../helpers/agent-world.js';

let server: ReferenceServer;
let receiver: ScriptedReceiver;
beforeAll(async () => {
  server = await startWorld({ virtualTime: true });
  receiver = await startScriptedReceiver(answer.status(503));
});
afterAll(async () => {
  await receiver.close();
  await server.close();
});

describe('auto-recover', () => {
  it('recovers an unreachable agent on connect and handles the pending queue in order', async () => {
    const owner = await createTestUser(server);
    const registered = await createTestAgent(server, owner);
    const store = new MemoryKeyStore();
    await store.save(KeyRing.create(registered.keys, server.clock.now()));
    await server.control.setWebhook(registered.agentId, { url: receiver.url });

    const side = new UserSide(server, owner, registered.agentId);
    await side.addAgent(); // relation.established: its webhook delivery fails
    await server.control.deliveryIdle();
    for (const gap of [30, 120, 480, 1920, 7200, 21600]) {
      server.advanceTime(gap * 1000);
      await server.control.deliveryIdle();
    }
    expect((await server.control.agent(registered.agentId))?.connection_status).toBe('unreachable');
    await side.refreshAccess();
    for (const text of ['one', 'two', 'three', 'four']) await side.send({ type: 'text', text });
    await server.control.removeWebhook(registered.agentId); // back to WebSocket mode, still unreachable

    const agent = newAgent(server, registered, { keyStore: store });
    const order: string[] = [];
    const recovered: number[] = [];
    const expiredSeen: ExpiredEvents[] = [];
    agent.on('recovered', ({ pendingCount, expired }) => {
      recovered.push(pendingCount);
      expiredSeen.push(expired);
    });
    agent.on('event', (e: AnyAgentEvent) => {
      order.push(e.type === 'message.new' ? String((e.payload as { text?: unknown }).text) : e.type);
    });
    await agent.connect();
    await waitFor(() => order.length === 5, 'the pending queue');
    expect(recovered).toEqual([5]);
    expect(expiredSeen).toEqual([{ count: 0, byType: {} }]);
    expect(order).toEqual(['relation.established', 'one', 'two', 'three', 'four']);
    expect((await server.control.agent(registered.agentId))?.connection_status).toBe('ready');
    await agent.close();
  });

  it('with autoRecover off, an unreachable agent stays unreachable and nothing flows', async () => {
    const owner = await createTestUser(server);
    const registered = await createTestAgent(server, owner);
    const store = new MemoryKeyStore();
    await store.save(KeyRing.create(registered.keys, server.clock.now()));
    await server.control.setWebhook(registered.agentId, { url: receiver.url });
    const side = new UserSide(server, owner, registered.agentId);
    await side.addAgent();
    await server.control.deliveryIdle();
    for (const gap of [30, 120, 480, 1920, 7200, 21600]) {
      server.advanceTime(gap * 1000);
      await server.control.deliveryIdle();
    }
    await server.control.removeWebhook(registered.agentId);
    const agent = newAgent(server, registered, { keyStore: store, autoRecover: false });
    await agent.connect();
    await server.control.deliveryIdle();
    expect((await server.control.agent(registered.agentId))?.connection_status).toBe('unreachable');
    expect(agent.stats().received).toBe(0);
    await agent.close();
  });

  it('events that expired while unreachable are in the delivery log (system events too) and reported on recovery', async () => {
    const owner = await createTestUser(server);
    const registered = await createTestAgent(server, owner);
    const store = new MemoryKeyStore();
    await store.save(KeyRing.create(registered.keys, server.clock.now()));
    await server.control.setWebhook(registered.agentId, { url: receiver.url });
    const side = new UserSide(server, owner, registered.agentId);
    await side.addAgent();
    await server.control.deliveryIdle();
    for (const gap of [30, 120, 480, 1920, 7200, 21600]) {
      server.advanceTime(gap * 1000);
      await server.control.deliveryIdle();
    }
    await side.refreshAccess();
    await side.send({ type: 'text', text: 'never attempted' });
    server.advanceTime(25 * 3600 * 1000);
    await server.control.deliveryIdle();
    await server.control.removeWebhook(registered.agentId);
    const logger = recordingLogger();
    const agent = newAgent(server, registered, { keyStore: store, logger });
    const expiredSeen: ExpiredEvents[] = [];
    agent.on('recovered', ({ expired }) => void expiredSeen.push(expired));
    await agent.connect();
    expect(expiredSeen).toEqual([{ count: 2, byType: { 'relation.established': 1, 'message.new': 1 } }]);
    expect(logger.lines.filter((l) => l.includes('expired in the pending queue'))).toHaveLength(1);
    await agent.close();
  });
});
