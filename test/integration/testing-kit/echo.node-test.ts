/**
 * The testing kit under node:test (run by node-test.test.ts with
 * `node --import tsx --test`): the same world, node's runner and assert.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestWorld, type TestWorld } from '../../../packages/dev/src/testing/index.js';

let world: TestWorld;

before(async () => {
  world = await createTestWorld({ agent: { mode: 'websocket' } });
  world.agent.on('message.new', async (message) => {
    await message.reply(`echo: ${message.text ?? ''}`);
  });
});
after(() => world.close());

test('the echo bot answers under node:test', async () => {
  await world.sendAsUser('from node:test');
  const reply = await world.waitForReply({ kind: 'text' });
  assert.deepEqual(reply.payload, { type: 'text', text: 'echo: from node:test' });
});
