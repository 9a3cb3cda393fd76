/** Type matrix consumer: the testing kit. */
import { createTestWorld, ManualClock, TestWorldError, type TestWorld } from '@agent-messaging/dev/testing';

export async function main(): Promise<void> {
  const world: TestWorld = await createTestWorld({ agent: { mode: 'webhook' } });
  world.agent.on('message.new', async (message) => {
    await message.reply(`echo: ${message.text ?? ''}`);
  });
  world.user.on('message', (m) => void m.senderId);
  await world.sendAsUser('hello');
  const delivered = await world.waitForDelivery();
  const reply = await world.waitForReply();
  void [delivered.type, reply.senderId, world.agentId];
  try {
    await world.expectDeliveries({ eventType: 'message.new', finalStatus: 'delivered', count: 1 });
  } catch (err) {
    if (err instanceof TestWorldError) void err.message;
  }
  void new ManualClock();
  await world.close();
}
