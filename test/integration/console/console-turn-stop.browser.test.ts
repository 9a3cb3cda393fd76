/**
 * The console's stop button in Chromium (#26): the page seals a `turn.stop`,
 * the bot's handler sees `ctx.signal` abort and stops its fake model, the
 * streamed reply ends `aborted: stopped`, and the bot's signed `turn.stopped`
 * shows as a notice; the stop never crosses the service in clear.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMessage } from '../../../packages/sdk/src/agent/context.js';
import type { Agent } from '../../../packages/sdk/src/agent/index.js';
import type { ReferenceServer } from '../../../packages/dev/src/server/index.js';
import { SKIP_BROWSER } from '../../helpers/console-browser.js';
import {
  closeConsoleSession,
  openAgentChat,
  sendFromPage,
  signInNewUser,
  startConsoleBot,
  startConsoleSession,
  type ConsoleBot,
  type SessionRecord,
} from '../../helpers/console-session.js';

/** What the bot's model saw. */
const model = { tokens: 0, cancelled: false };

/** A bot that streams tokens from a fake model until its turn's signal aborts. */
function stoppableBot(agent: Agent): void {
  agent.filter(isMessage, async (ctx) => {
    const writer = await ctx.replyStream({ coalesceMs: 0 });
    while (!ctx.signal.aborted) {
      model.tokens += 1;
      await writer.write(`t${model.tokens} `);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 5);
        ctx.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
      });
    }
    model.cancelled = true;
  });
}

describe.skipIf(SKIP_BROWSER)('dev console in Chromium: the stop button', () => {
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  let seen: SessionRecord;
  let bot: ConsoleBot;

  beforeAll(async () => {
    ({ server, browser, page, seen } = await startConsoleSession());
    const userId = await signInNewUser(page, server);
    bot = await startConsoleBot(server, userId, { name: 'Stoppable bot', setup: stoppableBot });
    await openAgentChat(page, bot.agentId);
  }, 30_000);

  afterAll(() => closeConsoleSession({ browser, server }, [bot]));

  it('Stop aborts the running turn: the stream ends "stopped", the bot confirms', async () => {
    await sendFromPage(page, 'write until I stop you');
    await page.waitForSelector('#messages li.stream[data-state="streaming"]');
    await page.click('#stop-turn');
    await page.waitForSelector('#messages li.turn-stopped:text-is("⏹ stopped (1 turn)")');
    await page.waitForSelector('#messages li.stream[data-state="failed"]');
    expect(await page.locator('#messages li.stream').textContent()).toContain(
      '[stream failed: aborted: stopped]',
    );
    expect(model.cancelled).toBe(true);
    expect(await page.locator('#curl').textContent()).toMatch(/\/messages/);
    // The page posted the stop sealed; the service's JSON answers and live feed never show it in clear
    // (the page's own script, which names the payload type, is left out).
    const json = seen.responseText.filter((t) => t.startsWith('{') || t.startsWith('['));
    const traffic = [...seen.urls, ...seen.requestText, ...json, ...seen.eventSourceText].join('\n');
    expect(traffic).not.toContain('turn.stop');
  });
});
