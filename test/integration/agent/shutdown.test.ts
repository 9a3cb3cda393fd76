/**
 * Graceful shutdown of a real process: the README bot (no signal code of
 * its own) gets SIGINT with handlers in flight, finishes them, acknowledges
 * them and exits promptly; a second SIGINT forces the exit (130).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { startBot, type BotProcess } from '../../helpers/agent-process.js';
import { createAccount, startWorld, UserSide, type AgentAccount } from '../../helpers/agent-world.js';

let server: ReferenceServer;
beforeAll(async () => {
  server = await startWorld();
});
afterAll(() => server.close());

async function pending(agentId: string): Promise<number> {
  return Number((await server.control.agent(agentId))?.pending_count);
}

/** Starts the bot, adds it, sends three messages and waits until the first handler runs. */
async function botWithWork(env: Record<string, string>): Promise<{ bot: BotProcess; account: AgentAccount }> {
  const account = await createAccount(server);
  const bot = startBot({
    AMS_BASE_URL: server.url,
    AMS_AGENT_ID: account.agentId,
    AMS_AGENT_TOKEN: account.token,
    ...env,
  });
  await bot.waitForLine('ready');
  const user = new UserSide(server, account.owner, account.agentId);
  await user.addAgent();
  for (const text of ['one', 'two', 'three']) await user.send({ type: 'text', text });
  await bot.waitForLine('start one');
  return { bot, account };
}

describe('graceful shutdown on signals', () => {
  it('SIGINT with three handlers in flight: all handled and acked, exit 0 within 3 s', async () => {
    const { bot, account } = await botWithWork({ BOT_HANDLER_MS: '400' });
    const signalled = Date.now();
    bot.child.kill('SIGINT');
    const exit = await bot.exited;
    const tookMs = exit.at - signalled;
    expect(exit, bot.stderr()).toMatchObject({ code: 0, signal: null });
    expect(bot.lines.filter((l) => l.startsWith('done '))).toEqual(['done one', 'done two', 'done three']);
    expect(tookMs).toBeLessThan(3_000);
    expect(await pending(account.agentId)).toBe(0);
    console.info(`graceful shutdown: exited ${tookMs} ms after SIGINT`);
  });

  it('a second SIGINT forces the exit at once (code 130)', async () => {
    const { bot } = await botWithWork({ BOT_HANDLER_MS: '5000' });
    bot.child.kill('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const second = Date.now();
    bot.child.kill('SIGINT');
    const exit = await bot.exited;
    expect(exit.code, bot.stderr()).toBe(130);
    expect(exit.at - second).toBeLessThan(1_000);
    expect(bot.lines).not.toContain('done one');
  });

  it('before: the earlier pattern (SIGINT → agent.close(), no exit) measured for comparison', async () => {
    const { bot } = await botWithWork({ BOT_HANDLER_MS: '400', BOT_STYLE: 'close-on-sigint' });
    const signalled = Date.now();
    bot.child.kill('SIGINT');
    const exit = await bot.exited;
    console.info(`close-on-sigint: exited ${exit.at - signalled} ms after SIGINT (code ${exit.code})`);
    expect(exit.code).toBe(0);
  }, 30_000);
});
