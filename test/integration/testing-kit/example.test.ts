import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestWorld, type TestWorld } from '@agent-messaging/dev/testing';

describe('an echo bot', () => {
  let world: TestWorld;

  beforeEach(async () => {
    world = await createTestWorld({ agent: { mode: 'webhook' } });
    world.agent.on('message.new', async (message) => {
      await message.reply(`echo: ${message.text ?? ''}`);
    });
  });
  afterEach(() => world.close());

  it('answers the user, end to end encrypted', async () => {
    await world.sendAsUser('hello');

    const delivered = await world.waitForDelivery();
    expect(delivered.type).toBe('message.new');
    const reply = await world.waitForReply({ kind: 'text' });
    expect(reply.payload).toEqual({ type: 'text', text: 'echo: hello' });
    expect(reply.senderId).toBe(world.agentId);

    await world.expectDeliveries({ eventType: 'message.new', finalStatus: 'delivered', count: 1 });
  });
});
