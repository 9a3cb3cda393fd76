import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import type { IncomingMessage, RelationEvent } from '../../../packages/sdk/src/agent/index.js';
import {
  agentSigningKey,
  createAccount,
  newAgent,
  startWorld,
  UserSide,
  waitFor,
} from '../../helpers/agent-world.js';

let server: ReferenceServer;
beforeAll(async () => {
  server = await startWorld();
});
afterAll(() => server.close());

describe('Agent over WebSocket against the reference server', () => {
  it('registers its keys, receives relation.established and a message, and replies', async () => {
    const account = await createAccount(server);
    const agent = newAgent(server, account);
    const relations: RelationEvent[] = [];
    const messages: IncomingMessage[] = [];
    agent.on('relation.established', (e) => void relations.push(e));
    agent.on('message.new', async (msg) => {
      messages.push(msg);
      await msg.reply(`echo: ${msg.text}`);
    });
    await agent.connect();
    expect(agent.state).toBe('running');

    const side = new UserSide(server, account.owner, account.agentId);
    const conversationId = await side.addAgent();
    const messageId = await side.send({ type: 'text', text: 'hello' });
    await waitFor(() => messages.length === 1, 'the message');
    expect(relations).toHaveLength(1);
    expect(relations[0]).toMatchObject({
      type: 'relation.established',
      senderId: 'system',
      sealed: true,
      userId: account.owner.userId,
      transport: 'websocket',
    });
    expect(messages[0]).toMatchObject({
      type: 'message.new',
      text: 'hello',
      messageId,
      conversationId,
      senderId: account.owner.userId,
      payload: { type: 'text', text: 'hello' },
    });
    await waitFor(() => agent.stats().handled === 2, 'the reply');
    const replies = await side.repliesFromAgent(await agentSigningKey(server, account));
    expect(replies.map((r) => r.payload)).toEqual([{ type: 'text', text: 'echo: hello' }]);
    expect(agent.stats()).toMatchObject({ received: 2, handled: 2, duplicates: 0, decryptFailures: 0 });
    const closed = await agent.close();
    expect(closed).toEqual({ drained: true, abandoned: 0 });
    expect(agent.state).toBe('closed');
  });
});
