/** The Agent's middleware chain against the reference server: a command answered end to end. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
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

describe('agent middleware', () => {
  it('agent.command and agent.hears answer through ctx.reply; agent.on handlers still run first', async () => {
    const account = await createAccount(server);
    const agent = newAgent(server, account, { shutdownSignals: false });
    const order: string[] = [];
    agent.on('message.new', (m) => void order.push(`on:${m.text}`));
    agent.use(async (ctx, next) => {
      order.push(`use:${ctx.type}`);
      await next();
    });
    agent.command('start', (ctx) => ctx.reply(`welcome ${ctx.command.args}`));
    agent.hears(/^ping$/i, (ctx) => ctx.reply('pong'));
    await agent.connect();
    const user = new UserSide(server, account.owner, account.agentId);
    await user.addAgent();
    await user.send({ type: 'text', text: '/start ada' });
    await user.send({ type: 'text', text: 'PING' });
    await waitFor(() => agent.stats().handled >= 3, 'the relation and both messages handled');
    const replies = await user.repliesFromAgent(await agentSigningKey(server, account));
    expect(replies.map((r) => (r.payload as { text?: string }).text)).toEqual(['welcome ada', 'pong']);
    expect(order).toEqual([
      'use:relation.established',
      'on:/start ada',
      'use:message.new',
      'on:PING',
      'use:message.new',
    ]);
    await agent.close();
  });
});
