/**
 * Status (#26) in the dev console, in Debian's Chromium: the bot's sealed
 * status is opened in the page and shown under the conversation while the
 * handler works ("Status bot: searching the web…"), the automatic indicator
 * ("Status bot is working…") shows for a handler that sets none, and the
 * reply clears the line; the status text never crosses the wire in clear. A
 * reply (`replyTo`) shows which message it answers; the bot's edit replaces
 * its bubble's text, its delete blanks it, its receipt marks the human's
 * message read.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const SECRET = 'searching the web for secret-7f3a';

describe.skipIf(SKIP_BROWSER)('dev console in Chromium: status', () => {
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  let seen: SessionRecord;
  let bot: ConsoleBot;
  const gates = new Map<string, () => void>();
  const held = (text: string) => new Promise<void>((resolve) => gates.set(text, resolve));

  beforeAll(async () => {
    ({ server, browser, page, seen } = await startConsoleSession());
    const userId = await signInNewUser(page, server);
    bot = await startConsoleBot(server, userId, {
      name: 'Status bot',
      readReceipts: true,
      setup: (agent: Agent) => {
        agent.hears(/^(search|think)$/, async (ctx) => {
          const wait = held(ctx.text ?? '');
          if (ctx.text === 'search') await ctx.status(SECRET);
          await wait;
          await ctx.reply(`done: ${ctx.text ?? ''}`);
        });
        agent.hears('edit me', async (ctx) => {
          const { conversationId } = ctx.event;
          const draft = await ctx.reply('draft answer');
          // The server runs on a virtual clock: move it past the message limit's window before each send.
          server.advanceTime(1_001);
          await agent.edit(conversationId, draft.messageId, 'final answer');
          server.advanceTime(1_001);
          await agent.markRead(conversationId, [ctx.event.messageId]);
        });
        agent.hears('delete me', async (ctx) => {
          const gone = await ctx.reply('soon gone');
          server.advanceTime(1_001);
          await agent.delete(ctx.event.conversationId, gone.messageId);
        });
        agent.hears('quote me', (ctx) =>
          ctx.reply('quoted', { replyTo: ctx.event.messageId }).then(() => undefined),
        );
      },
    });
    await openAgentChat(page, bot.agentId);
  }, 30_000);

  afterAll(() => closeConsoleSession({ browser, server }, [bot]));

  it("ctx.status(text) shows under the conversation until the bot's reply", async () => {
    await sendFromPage(page, 'search');
    await page.waitForSelector(`#agent-status[data-state="working"]:text-is("Status bot: ${SECRET}")`);
    gates.get('search')!();
    await page.waitForSelector('#messages li.theirs:text-is("done: search")');
    await page.waitForSelector('#agent-status[data-state="idle"]', { state: 'attached' });
    expect(await page.locator('#agent-status').isHidden()).toBe(true);
  });

  it('the automatic indicator shows while a handler works without a status of its own', async () => {
    await sendFromPage(page, 'think');
    await page.waitForSelector('#agent-status[data-state="working"]:text-is("Status bot is working…")');
    gates.get('think')!();
    await page.waitForSelector('#messages li.theirs:text-is("done: think")');
    await page.waitForSelector('#agent-status[data-state="idle"]', { state: 'attached' });
  });

  it('a reply from the bot shows which message it answers, quoted from the page', async () => {
    await sendFromPage(page, 'quote me');
    const reply = page.locator('#messages li.theirs:text-is("quoted")');
    await reply.waitFor();
    const mine = page.locator('#messages li.mine:text-is("quote me")');
    expect(await reply.getAttribute('data-reply-to')).toBe(await mine.getAttribute('data-message-id'));
    expect(await reply.getAttribute('data-quote')).toBe('quote me');
  });

  it("the bot's edit, delete and receipt show on the bubbles they name", async () => {
    await sendFromPage(page, 'edit me');
    await page.waitForSelector('#messages li.theirs[data-edited="true"]:text-is("final answer")');
    await page.waitForSelector('#messages li.mine[data-read="true"]:text-is("edit me")');
    await sendFromPage(page, 'delete me');
    await page.waitForSelector('#messages li.theirs[data-deleted="true"]:text-is("message deleted")');
    expect(await page.locator('#messages li:text-is("draft answer")').count()).toBe(0);
  });

  it('the status text never crossed the wire or the page traffic in clear', () => {
    const traffic = JSON.stringify(seen);
    expect(traffic).toContain('status.update');
    expect(traffic).not.toContain('secret-7f3a');
  });
});
