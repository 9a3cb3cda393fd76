/**
 * The dev console's "break things" side from a person's point of view in
 * Debian's Chromium: replay a delivery and the bot skips it as a duplicate;
 * drop the agent's WebSocket and the bot comes back; make the webhook time
 * out and read each attempt (time, answer, latency, next attempt); set a
 * governance level; each action with its curl line, and no secret leaks.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../../packages/sdk/src/agent/index.js';
import type { DuplicateInfo } from '../../../packages/sdk/src/agent/events.js';
import { runCli } from '../../../packages/dev/src/cli/run.js';
import type { ReferenceServer } from '../../../packages/dev/src/server/index.js';
import { captureIo } from '../../unit/cli/helpers.js';
import { SKIP_BROWSER } from '../../helpers/console-browser.js';
import {
  closeConsoleSession,
  expectNoSecrets,
  startConsoleBot,
  type ConsoleBot,
  type SessionRecord,
  startConsoleSession,
  signInNewUser,
  openAgentChat,
  sendFromPage,
} from '../../helpers/console-session.js';

const echo = (duplicates: DuplicateInfo[]) => (agent: Agent) => {
  agent.on('message.new', async (msg) => {
    await msg.reply(`echo: ${msg.text ?? ''}`);
  });
  agent.on('duplicate', (d) => duplicates.push(d));
};

describe.skipIf(SKIP_BROWSER)('dev console in Chromium: breaking things', () => {
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  let seen: SessionRecord;
  let userId: string;
  const bots: ConsoleBot[] = [];

  beforeAll(async () => {
    ({ server, browser, page, seen } = await startConsoleSession());
    userId = await signInNewUser(page, server);
  }, 30_000);

  afterAll(() => closeConsoleSession({ browser, server }, bots));

  async function openBot(bot: ConsoleBot): Promise<void> {
    bots.push(bot);
    await openAgentChat(page, bot.agentId);
  }

  async function say(text: string): Promise<void> {
    await sendFromPage(page, text);
  }

  const field = (name: string) => page.locator(`#status [data-field="${name}"]`);

  it('a replayed delivery reaches the bot again with the same delivery id and is skipped as a duplicate', async () => {
    const duplicates: DuplicateInfo[] = [];
    const bot = await startConsoleBot(server, userId, { name: 'Echo', setup: echo(duplicates) });
    await openBot(bot);
    await say('once only');
    await page.waitForSelector('#messages li.theirs:text-is("echo: once only")');
    const row = page.locator('#log tbody tr[data-delivery-id]', { hasText: 'message.newdelivered' }).first();
    await row.waitFor();
    const deliveryId = (await row.getAttribute('data-delivery-id'))!;
    await row.locator('button.replay').click();
    await expect
      .poll(() => duplicates.map((d) => [d.deliveryId, d.by]))
      .toEqual([[deliveryId, 'delivery_id']]);
    expect(await page.locator('#curl').textContent()).toContain(`/deliveries/${deliveryId}/replay`);
    // The replay is in the log under the same delivery id; the chat got no second echo.
    await page.click(`#agents button[data-agent-id="${bot.agentId}"]`);
    await expect.poll(() => page.locator(`#log tbody tr[data-delivery-id="${deliveryId}"]`).count()).toBe(2);
    // (Re-opening the chat reloads its history: wait for it.)
    await page.waitForSelector('#messages li.mine:text-is("once only")');
    await page.waitForSelector('#messages li.theirs');
    expect(await page.locator('#messages li').allTextContents()).toEqual(['once only', 'echo: once only']);
    // Both rows are marked as the same id, and count both attempts (before: `attempts 1` beside a list of two).
    const rows = page.locator(`#log tbody tr[data-delivery-id="${deliveryId}"]`);
    const cells = () =>
      rows.evaluateAll((trs) =>
        trs.map((tr) => [
          tr.getAttribute('data-duplicate'),
          tr.querySelector('.duplicate')?.textContent,
          tr.children[2]?.textContent,
        ]),
      );
    expect(await cells()).toEqual([
      ['true', 'same id ×2', '2'],
      ['true', 'same id ×2', '2'],
    ]);
    await rows.first().locator('button.show-attempts').click();
    const list = page.locator(`tr.attempts[data-attempts-of="${deliveryId}"]`);
    await expect.poll(() => list.locator('li').count()).toBe(2);
    expect(await list.count()).toBe(1);

    // Status colours and the online dot (issue #28).
    await page.waitForSelector(`#agents button[data-agent-id="${bot.agentId}"][data-online="true"]`);
    await page.waitForSelector('#status dd[data-field="connection_status"][data-tone="ok"]');
    expect(await rows.first().locator('td').nth(1).getAttribute('data-tone')).toBe('ok');
    // Filters and search in the delivery log: the replayed rows only, then a search by delivery id.
    const visible = () =>
      page
        .locator('#log tbody tr[data-delivery-id]:visible')
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-delivery-id')));
    const all = await visible();
    expect(all.length).toBeGreaterThan(2);
    await page.selectOption('#log-filter', 'replayed');
    expect(await visible()).toEqual([deliveryId, deliveryId]);
    expect(await page.locator('#log-count').textContent()).toBe(`2 of ${all.length}`);
    await page.selectOption('#log-filter', 'all');
    await page.fill('#log-search', deliveryId.slice(-12));
    expect(await visible()).toEqual([deliveryId, deliveryId]);
    await page.fill('#log-search', 'no such event');
    expect(await visible()).toEqual([]);
    await page.fill('#log-search', '');
    expect(await visible()).toEqual(all);
  });

  it("dropping the agent's WebSocket: the bot reconnects and answers again", async () => {
    const bot = bots[0]!;
    await page.click(`#agents button[data-agent-id="${bot.agentId}"]`);
    await page.waitForSelector('#status [data-field="websocket_connections"]:text-is("1")');
    await page.click('#drop-ws');
    await page.waitForFunction(() =>
      document.querySelector('#connection')?.textContent?.startsWith('dropped 1'),
    );
    expect(await page.locator('#curl').textContent()).toContain('/websocket/drop');
    // The bot's reconnect backoff runs on the server's (virtual) clock: step it until the bot is back.
    await expect
      .poll(
        async () => {
          await page.click('#advance');
          return field('websocket_connections').textContent();
        },
        { timeout: 15_000 },
      )
      .toBe('1');
    await say('back?');
    await page.waitForSelector('#messages li.theirs:text-is("echo: back?")');
  });

  it('a webhook timing out once: the attempts show the timeout, the immediate retry and its 200', async () => {
    const bot = await startConsoleBot(server, userId, { name: 'Hook', mode: 'webhook', setup: echo([]) });
    await openBot(bot);
    await page.selectOption('#fail-status', 'timeout');
    await page.fill('#fail-n', '1');
    await page.click('#fail');
    await page.waitForSelector('#status [data-field="injected_failures_left"]:text-is("1")');
    expect(await page.locator('#curl').textContent()).toContain('"status":"timeout","count":1');
    await say('slow?');
    await page.waitForSelector('#messages li.theirs:text-is("echo: slow?")');
    const row = page.locator('#log tbody tr[data-delivery-id]', { hasText: 'message.newdelivered2' }).first();
    await row.waitFor();
    const attempts = page.locator('#log tr.attempts li');
    // The live view may have opened them already (a pending delivery that failed an attempt opens by itself).
    if ((await attempts.count()) === 0) await row.locator('button.show-attempts').click();
    await expect.poll(() => attempts.count()).toBe(2);
    const [first, second] = await attempts.allTextContents();
    expect(first).toMatch(/^#1 \d\d:\d\d:\d\d timeout temporary \d+ ms, next \d\d:\d\d:\d\d$/);
    expect(second).toMatch(/^#2 \d\d:\d\d:\d\d HTTP 200 delivered \d+ ms$/);
  });

  it('sets a governance level and shows it', async () => {
    await page.selectOption('#governance-level', 'L1');
    await page.click('#set-governance');
    await page.waitForSelector('#status [data-field="governance_level"]:text-is("L1")');
    expect(await page.locator('#curl').textContent()).toContain(`-X PUT`);
    expect(await page.locator('#curl').textContent()).toContain('{"level":"L1"}');
  });

  it('signs in as the owner `ams dev bootstrap` created: its agent is listed and answers', async () => {
    const io = captureIo({ env: { AMS_BASE_URL: server.url } });
    expect(await runCli(['dev', 'bootstrap', '--json'], io)).toBe(0);
    const env = JSON.parse(io.out) as Record<string, string>;
    await page.fill('#owner-email', env['AMS_OWNER_EMAIL']!);
    await page.click('#sign-in-as button');
    await page.waitForSelector(`#agents button[data-agent-id="${env['AMS_AGENT_ID']}"]`);
    // The page lists the owner's agents on sign-in and marks the user ready (`data-user-id`) only
    // once its keys are published: wait for that mark, then check it is the new owner.
    await page.waitForFunction((old) => {
      const id = document.querySelector('#user')?.getAttribute('data-user-id');
      return id !== null && id !== undefined && id !== old;
    }, userId);
    expect(await page.getAttribute('#user', 'data-user-id')).not.toBe(userId);
    const bot = await startConsoleBot(server, '', {
      name: 'bootstrap',
      setup: echo([]),
      existing: { agentId: env['AMS_AGENT_ID']!, token: env['AMS_AGENT_TOKEN']! },
    });
    await openBot(bot);
    await say('hello, my own bot');
    await page.waitForSelector('#messages li.theirs:text-is("echo: hello, my own bot")');
  });

  it('no token or key material in the whole session', async () => {
    await expectNoSecrets(
      page,
      seen,
      bots.map((b) => b.token),
    );
  });
});
