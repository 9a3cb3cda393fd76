/**
 * Issue #24, item 11 (inbox part): reading the inbox (`client.messages()`)
 * had no duplicate check. The service lists the stored messages, so it can
 * list one signed message several times under new `seq` numbers, making it
 * count twice. Now a second copy of the same signed (sender, message id) in a
 * page is in `failed` as `DECRYPT_FAILURE` reason `duplicate`. (An inbox read
 * is history: no replay window; see docs/user-client.md.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextEvent } from '../helpers/client-setup.js';
import { startSecurityWorld, type SecurityWorld } from './world.js';

let world: SecurityWorld;

beforeAll(async () => {
  world = await startSecurityWorld();
  world.agent.on('message.new', async (msg) => {
    await msg.reply(`echo: ${msg.text ?? ''}`);
  });
  const reply = nextEvent(world.user.client, 'message');
  await world.user.client.send(world.conversationId, { type: 'text', text: 'pay 10 EUR to Bob' });
  await reply;
});
afterAll(async () => {
  await world.close();
});

describe('inbox reads through a hostile service', () => {
  it('a signed message the service lists twice under new seq numbers counts once; the copies are refused as duplicate', async () => {
    world.relay.onResponse = (_method, path, json) => {
      if (!path.startsWith(`/conversations/${world.conversationId}/messages`)) return json;
      const body = json as { data: { seq: number }[] };
      const replayed = body.data.map((m, i) => ({ ...m, seq: 1000 + i }));
      return { ...body, data: [...body.data, ...replayed] };
    };
    try {
      const page = await world.user.client.messages(world.conversationId);
      const texts = page.messages.map((m) => (m.payload.type === 'text' ? m.payload.text : undefined));
      expect(texts).toEqual(['pay 10 EUR to Bob', 'echo: pay 10 EUR to Bob']);
      expect(page.failed.map((f) => [f.seq, f.error.code, (f.error as { reason?: string }).reason])).toEqual([
        [1000, 'DECRYPT_FAILURE', 'duplicate'],
        [1001, 'DECRYPT_FAILURE', 'duplicate'],
      ]);
      expect(page.messages.every((m) => m.event === 'inbox')).toBe(true);
    } finally {
      world.relay.onResponse = undefined;
    }
  });
});
