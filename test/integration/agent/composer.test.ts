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
  it('the chain runs first; a handled command or hears ends it, so agent.on handlers get only the rest (issue #28)', async () => {
    const account = await createAccount(server);
    const agent = newAgent(server, account, { shutdownSignals: false });
    const order: string[] = [];
    agent.on('message.new', async (m) => {
      order.push(`on:${m.text}`);
      await m.reply(`echo: ${m.text}`);
    });
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
    await user.send({ type: 'text', text: 'hello' });
    await waitFor(() => agent.stats().handled >= 4, 'the relation and the three messages handled');
    const replies = await user.repliesFromAgent(await agentSigningKey(server, account));
    // One answer each: before, `/start` and `PING` were echoed by agent.on as well.
    expect(replies.map((r) => (r.payload as { text?: string }).text)).toEqual([
      'welcome ada',
      'pong',
      'echo: hello',
    ]);
    expect(order).toEqual([
      'use:relation.established',
      'use:message.new',
      'use:message.new',
      'use:message.new',
      'on:hello',
    ]);
    await agent.close();
  });
});
