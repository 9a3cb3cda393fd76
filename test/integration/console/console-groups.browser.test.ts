/**
 * A group conversation in the dev console, from a person's point of view in
 * Debian's Chromium: the person makes a group with two of their bots, writes
 * once (sealed in the page for every member), and sees each bot's answer
 * labelled with its name; the group is listed and reopens with its history.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../../packages/sdk/src/agent/index.js';
import type { ReferenceServer } from '../../../packages/dev/src/server/index.js';
import { SKIP_BROWSER } from '../../helpers/console-browser.js';
import {
  closeConsoleSession,
  expectNoSecrets,
  startConsoleBot,
  type ConsoleBot,
  type SessionRecord,
  startConsoleSession,
  signInNewUser,
  sendFromPage,
} from '../../helpers/console-session.js';

/** Answers the human only (never the other bot: no echo loop in the group). */
const answerHuman = (userId: string, name: string) => (agent: Agent) => {
  agent.on('message.new', async (msg) => {
    if (msg.senderId === userId) await msg.reply(`${name} heard: ${msg.text ?? ''}`);
  });
};

describe.skipIf(SKIP_BROWSER)('dev console in Chromium: a group', () => {
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  let seen: SessionRecord;
  const bots: ConsoleBot[] = [];

  beforeAll(async () => {
    ({ server, browser, page, seen } = await startConsoleSession());
  }, 30_000);

  afterAll(() => closeConsoleSession({ browser, server }, bots));

  it('two bots in a group each answer a message written once in the page', async () => {
    const userId = await signInNewUser(page, server);
    for (const name of ['Ada', 'Bob'])
      bots.push(await startConsoleBot(server, userId, { name, setup: answerHuman(userId, name) }));
    await page.click('#refresh-agents');
    await page.waitForSelector('#new-group:not([disabled])');
    await page.click('#new-group');
    await page.waitForSelector('#groups button[aria-current="true"]');
    expect(await page.locator('#chat-title').textContent()).toMatch(/^Group Dev group /);
    expect(await page.locator('#curl').textContent()).toContain('/groups');
    await page.waitForSelector('#text:not([disabled])');
    await sendFromPage(page, 'hello, crew');
    const ada = page.locator('#messages li.theirs[data-sender="Ada"]');
    const bob = page.locator('#messages li.theirs[data-sender="Bob"]');
    await ada.waitFor();
    await bob.waitFor();
    expect(await ada.textContent()).toBe('Ada heard: hello, crew');
    expect(await bob.textContent()).toBe('Bob heard: hello, crew');

    // Reopened from the list: the history, opened in the page, with the same labels.
    await page.click(`#agents button[data-agent-id="${bots[0]!.agentId}"]`);
    await page.waitForSelector('#chat-title:text("Chat with Ada")');
    await page.click('#groups button');
    await page.waitForSelector('#messages li[data-sender="Bob"]');
    await expect.poll(() => page.locator('#messages li').count()).toBe(3);
    expect(await page.locator('#messages li.mine').textContent()).toBe('hello, crew');
  });

  it('no token or key material in the whole session', async () => {
    await expectNoSecrets(
      page,
      seen,
      bots.map((b) => b.token),
    );
  });
});
