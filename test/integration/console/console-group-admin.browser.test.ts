/**
 * Managing a group from the dev console, in Debian's Chromium: the page
 * makes a group with one bot, makes an invite code that a second bot joins
 * with (`agent.groups.join`), and the next message is sealed for both (both
 * answer); the owner removes the second bot (only the first answers after);
 * the person leaves, and the group (no human left) is gone from the list.
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
  startConsoleSession,
  type ConsoleBot,
  type SessionRecord,
  signInNewUser,
  sendFromPage,
} from '../../helpers/console-session.js';

describe.skipIf(SKIP_BROWSER)('dev console in Chromium: group members, invite, remove, leave', () => {
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  let seen: SessionRecord;
  let userId: string;
  const bots: ConsoleBot[] = [];
  const heard: Record<string, string[]> = { Ada: [], Bob: [] };

  /** Answers the human only (never the other bot). */
  const answerHuman = (name: string) => (agent: Agent) => {
    agent.on('message.new', async (msg) => {
      if (msg.senderId !== userId) return;
      heard[name]!.push(msg.text ?? '');
      await msg.reply(`${name} heard: ${msg.text ?? ''}`);
    });
  };

  beforeAll(async () => {
    ({ server, browser, page, seen } = await startConsoleSession());
    userId = await signInNewUser(page, server);
    bots.push(await startConsoleBot(server, userId, { name: 'Ada', setup: answerHuman('Ada') }));
    await page.click('#refresh-agents');
    await page.waitForSelector('#new-group:not([disabled])');
    await page.click('#new-group');
    await page.waitForSelector('#group-bar:not([hidden]) li[data-member-id]');
  }, 30_000);

  afterAll(() => closeConsoleSession({ browser, server }, bots));

  async function say(text: string): Promise<void> {
    await sendFromPage(page, text);
  }

  const members = () => page.locator('#group-bar li[data-member-id] .member-name').allTextContents();

  it('lists the members, the person as owner', async () => {
    expect(await members()).toEqual(['you (user, owner)', 'Ada (agent)']);
  });

  it('an invite code lets a second bot join; the next message is sealed for it too', async () => {
    const bob = await startConsoleBot(server, userId, { name: 'Bob', setup: answerHuman('Bob') });
    bots.push(bob);
    await page.click('#group-bar button.invite');
    await expect.poll(() => page.textContent('#invite-code')).toMatch(/\S{6,}/);
    const code = (await page.textContent('#invite-code'))!;
    expect(await page.textContent('#curl')).toMatch(/-X POST '.+\/groups\/[^/]+\/invites'/);
    await bob.agent.groups.join(code);
    // group.updated reaches the page, which reads the members again.
    // Shown by name once the agent list is read again (it is, on the same frame), else by id.
    await expect
      .poll(async () => (await members()).some((m) => m === 'Bob (agent)' || m === `${bob.agentId} (agent)`))
      .toBe(true);
    await say('all hands');
    await page.waitForSelector('#messages li.theirs:text-is("Ada heard: all hands")');
    await page.waitForSelector('#messages li.theirs:text-is("Bob heard: all hands")');
  });

  it('the owner removes the second bot: only the first hears what follows', async () => {
    const bob = bots[1]!;
    await page.click(`#group-bar li[data-member-id="${bob.agentId}"] button.remove-member`);
    await expect.poll(members).toEqual(['you (user, owner)', 'Ada (agent)']);
    await say('just us');
    await page.waitForSelector('#messages li.theirs:text-is("Ada heard: just us")');
    expect(heard['Bob']).toEqual(['all hands']);
  });

  it('leaving the group closes it; with no human left it is deleted', async () => {
    await page.click('#group-bar button.leave-group');
    await expect
      .poll(() => page.textContent('#connection'))
      .toMatch(/^you left Dev group .+ \(no human left: the group is deleted\)$/);
    await expect.poll(() => page.locator('#groups li').count()).toBe(0);
    expect(await page.locator('#group-bar').isHidden()).toBe(true);
    expect(await page.locator('#text').isDisabled()).toBe(true);
  });

  it('leaked no secret during the session', async () => {
    await expectNoSecrets(
      page,
      seen,
      bots.map((b) => b.token),
    );
  });
});
