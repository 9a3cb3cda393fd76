/**
 * The rest of the control API from the dev console, in Debian's Chromium:
 * suspend and restore the relation of the open chat (the bot receives the
 * system-sealed relation events, and the user's message is refused while
 * suspended), and send the bot any system event; each with its curl line.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyAgentEvent } from '../../../packages/sdk/src/agent/events.js';
import type { ReferenceServer } from '../../../packages/dev/src/server/index.js';
import { SKIP_BROWSER } from '../../helpers/console-browser.js';
import {
  closeConsoleSession,
  expectNoSecrets,
  startConsoleBot,
  startConsoleSession,
  type ConsoleBot,
  type SessionRecord,
  signInNewUser,
  openAgentChat,
  sendFromPage,
} from '../../helpers/console-session.js';

describe.skipIf(SKIP_BROWSER)('dev console in Chromium: relation and system events', () => {
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  let seen: SessionRecord;
  let bot: ConsoleBot;
  const events: AnyAgentEvent[] = [];

  beforeAll(async () => {
    ({ server, browser, page, seen } = await startConsoleSession());
    const userId = await signInNewUser(page, server);
    bot = await startConsoleBot(server, userId, {
      name: 'Watcher',
      setup: (agent) => {
        agent.on('event', (e) => void events.push(e));
        agent.on('message.new', async (msg) => {
          await msg.reply(`echo: ${msg.text ?? ''}`);
        });
      },
    });
    await openAgentChat(page, bot.agentId);
  }, 30_000);

  afterAll(() => closeConsoleSession({ browser, server }, [bot]));

  const types = () => events.map((e) => e.type);

  it('suspends the relation: the bot is told, and a message is refused until it is restored', async () => {
    await page.click('#suspend-relation');
    await expect.poll(types).toContain('relation.suspended');
    // The bot may hear it before the page's own call returns: wait for the page too.
    await expect.poll(() => page.textContent('#connection')).toBe('relation suspended');
    expect(await page.textContent('#curl')).toMatch(/-X POST '.+\/_control\/conversations\/[^/]+\/suspend'/);

    await sendFromPage(page, 'while suspended');
    await expect.poll(() => page.textContent('#error')).toMatch(/^error: [A-Z_]+: /);
    expect(types()).not.toContain('message.new');

    await page.click('#restore-relation');
    await expect.poll(types).toContain('relation.restored');
    await sendFromPage(page, 'after restore');
    await page.waitForSelector('#messages li.theirs:text-is("echo: after restore")');
  });

  it('sends the bot a system event with the typed payload, sealed by the system sender', async () => {
    await page.fill('#event-type', 'system.notice');
    await page.fill('#event-payload', `{"text":"it's maintenance at 02:00"}`);
    await page.click('#send-event');
    await expect.poll(types).toContain('system.notice');
    const notice = events.find((e) => e.type === 'system.notice')!;
    expect(notice.payload).toMatchObject({ text: "it's maintenance at 02:00" });
    await expect
      .poll(() => page.textContent('#connection'))
      .toMatch(/^system event system\.notice: (queued|sent)$/);
    // The curl line quotes the payload's apostrophe for the shell.
    expect(await page.textContent('#curl')).toContain(`"it'\\''s maintenance at 02:00"`);
  });

  it('refuses a payload that is not a JSON object, with a clear message and no request', async () => {
    const before = seen.urls.length;
    await page.fill('#event-payload', '[1, 2]');
    await page.click('#send-event');
    await expect
      .poll(() => page.textContent('#error'))
      .toBe('error: The event payload must be a JSON object.');
    await page.fill('#event-payload', '{oops');
    await page.click('#send-event');
    await expect.poll(() => page.textContent('#error')).toMatch(/is not JSON/);
    expect(seen.urls.slice(before).filter((u) => u.includes('/events'))).toEqual([]);
  });

  it('leaked no secret during the session', async () => {
    await expectNoSecrets(page, seen, [bot.token]);
  });
});
