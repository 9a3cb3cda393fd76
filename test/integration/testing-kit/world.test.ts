/**
 * The testing kit against the reference server: WebSocket and webhook
 * worlds, an agent connected later, virtual time, and the helpers' failures.
 */
import { describe, expect, it } from 'vitest';
import { createTestWorld, TestWorldError } from '../../../packages/dev/src/testing/index.js';

describe('createTestWorld in WebSocket mode', () => {
  it('connects the agent, delivers the relation then messages in order, reads replies', async () => {
    const world = await createTestWorld();
    try {
      world.agent.on('message.new', (m) => m.reply(`got ${m.text ?? ''}`).then(() => undefined));
      expect(world.agent.state).toBe('running');
      const relation = await world.waitForDelivery((e) => e.type === 'relation.established');
      expect(relation.transport).toBe('websocket');
      const ids = [await world.sendAsUser('one'), await world.sendAsUser({ type: 'text', text: 'two' })];
      const first = await world.waitForDelivery();
      const second = await world.waitForDelivery();
      expect([first.messageId, second.messageId]).toEqual(ids);
      expect((await world.waitForReply({ kind: 'text' })).payload).toEqual({ type: 'text', text: 'got one' });
      expect((await world.waitForReply({ kind: 'text' })).payload).toEqual({ type: 'text', text: 'got two' });
      const logs = await world.deliveryLogs();
      expect(logs.map((l) => l.event_type)).toEqual(['message.new', 'message.new', 'relation.established']);
      await world.expectDeliveries({ eventType: 'message.new', finalStatus: 'delivered', count: 2 });
    } finally {
      await world.close();
    }
  });

  it('deliveryLogs waits for the ack of a delivery whose handler is still running', async () => {
    const world = await createTestWorld();
    try {
      let started: () => void = () => undefined;
      const handlerStarted = new Promise<void>((resolve) => (started = resolve));
      world.agent.on('message.new', async () => {
        started();
        await new Promise((resolve) => setTimeout(resolve, 150));
      });
      await world.sendAsUser('slow');
      await handlerStarted;
      const logs = await world.deliveryLogs();
      expect(logs.filter((l) => l.event_type === 'message.new').map((l) => l.final_status)).toEqual([
        'delivered',
      ]);
    } finally {
      await world.close();
    }
  });

  it('hands over an unconnected agent when asked; events wait at the service', async () => {
    const world = await createTestWorld({ agent: { connect: false }, timeoutMs: 300 });
    try {
      expect(world.agent.state).toBe('idle');
      await world.sendAsUser('queued');
      await expect(world.waitForDelivery()).rejects.toBeInstanceOf(TestWorldError);
      await world.agent.connect();
      const event = await world.waitForDelivery(undefined, { timeoutMs: 5_000 });
      expect(event.type).toBe('message.new');
    } finally {
      await world.close();
    }
  });

  it('fails waits with a TestWorldError that names what it waited for', async () => {
    const world = await createTestWorld({ timeoutMs: 100 });
    try {
      const err = (await world.waitForReply().catch((e: unknown) => e)) as Error;
      expect(err).toBeInstanceOf(TestWorldError);
      expect(err.message).toContain('waiting for a reply from agent "Test agent"');
    } finally {
      await world.close();
    }
  });
});

describe('createTestWorld in webhook mode', () => {
  it('logs deliveries, and expectDeliveries reports a mismatch with what the logs hold', async () => {
    const world = await createTestWorld({ agent: { mode: 'webhook' } });
    try {
      await world.sendAsUser('hi');
      const event = await world.waitForDelivery();
      expect(event.transport).toBe('webhook');
      const logs = await world.expectDeliveries({ finalStatus: 'delivered', count: 2 });
      expect(logs.map((l) => l.event_type)).toEqual(['message.new', 'relation.established']);
      const err = (await world
        .expectDeliveries({ eventType: 'message.new', count: 3 })
        .catch((e: unknown) => e)) as Error;
      expect(err).toBeInstanceOf(TestWorldError);
      expect(err.message).toContain('found 1');
      expect(err.message).toContain('relation.established:delivered');
    } finally {
      await world.close();
    }
  });

  it('advances the service clock: the user token expires and is refreshed on the next send', async () => {
    const world = await createTestWorld({ agent: { mode: 'webhook' } });
    try {
      const before = world.server.clock.now();
      await world.advanceTime(301_000);
      expect(world.server.clock.now() - before).toBe(301_000);
      await world.sendAsUser('after the access token expired');
      expect((await world.waitForDelivery()).type).toBe('message.new');
    } finally {
      await world.close();
    }
  });
});
