/**
 * The owner's decisions in the dev console, in Debian's Chromium: the bot
 * proposes a capability manifest and asks for a data grant; the page shows
 * both under "Requests to the owner" by themselves (the user's dev feed); Accept reaches the bot as
 * `agent.capability_changed`, Grant lets it read the data, Revoke sends
 * `grant.revoked` and the read is refused.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyAgentEvent } from '../../../packages/sdk/src/agent/events.js';
import { isServiceError } from '../../../packages/sdk/src/core/errors/index.js';
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

describe.skipIf(SKIP_BROWSER)('dev console in Chromium: requests to the owner', () => {
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  let seen: SessionRecord;
  let bot: ConsoleBot;
  let conversationId: string | undefined;
  const events: AnyAgentEvent[] = [];

  beforeAll(async () => {
    ({ server, browser, page, seen } = await startConsoleSession());
    const userId = await signInNewUser(page, server);
    bot = await startConsoleBot(server, userId, {
      name: 'Asker',
      setup: (agent) => {
        agent.on('event', (e) => void events.push(e));
        agent.on('message.new', async (msg) => {
          conversationId = msg.conversationId;
          await msg.reply('noted');
        });
      },
    });
    await openAgentChat(page, bot.agentId);
    await sendFromPage(page, 'hello');
    await page.waitForSelector('#messages li.theirs:text-is("noted")');
  }, 30_000);

  afterAll(() => closeConsoleSession({ browser, server }, [bot]));

  it('shows a proposed manifest and accepts it: the bot is told', async () => {
    const revision = await bot.agent.manifest.update(
      {
        name: 'Asker',
        description: 'Asks for things.',
        version: '1.0.0',
        tools: [],
        data_scopes: ['profile.read'],
      },
      { basedOnVersion: 0 },
    );
    // No click: the user's dev feed says the agent asked something.
    const item = page.locator(`#requests li[data-manifest-version="${revision.version}"]`);
    await item.waitFor();
    expect(await item.textContent()).toContain(`v${revision.version} pending`);
    await item.locator('summary').click();
    expect(await item.locator('pre').textContent()).toContain('"description": "Asks for things."');
    await item.locator('button.accept-manifest').click();
    await expect
      .poll(() => events.find((e) => e.type === 'agent.capability_changed')?.payload)
      .toMatchObject({ version: revision.version, decision: 'accepted' });
    await expect.poll(() => page.textContent('#requests')).toContain(`v${revision.version} accepted`);
    expect(await page.textContent('#curl')).toContain('/manifest/decision');
  });

  it('grants a data request, then revokes it: the bot reads the data, then is refused', async () => {
    const asked = await bot.agent.grants.request({
      conversationId: conversationId!,
      scope: 'profile.read',
      windowSeconds: 3_600,
      reason: 'to greet you by name',
    });
    // No click: the user's dev feed says the agent asked something.
    const item = page.locator(`#requests li[data-grant-id="${asked.grantId}"]`);
    await item.waitFor();
    expect(await item.textContent()).toContain('profile.read for 60 min asked: "to greet you by name"');
    await item.locator('button.grant').click();
    await page.waitForSelector(`#requests li[data-grant-id="${asked.grantId}"][data-grant-status="granted"]`);
    const read = await bot.agent.grants.read(asked.grantId);
    expect(read.scope).toBe('profile.read');

    await page.click(`#requests li[data-grant-id="${asked.grantId}"] button.revoke-grant`);
    await expect.poll(() => events.some((e) => e.type === 'grant.revoked')).toBe(true);
    await expect.poll(() => page.locator(`#requests li[data-grant-id="${asked.grantId}"]`).count()).toBe(0);
    const refused = await bot.agent.grants.read(asked.grantId).catch((err: unknown) => err);
    expect(isServiceError(refused, 'GRANT_REVOKED')).toBe(true);
  });

  it('a denied request leaves the list and the bot cannot read', async () => {
    const asked = await bot.agent.grants.request({
      conversationId: conversationId!,
      scope: 'conversations.list',
      windowSeconds: 600,
      reason: 'to list our chats',
    });
    await page.click('#refresh-requests');
    await page.click(`#requests li[data-grant-id="${asked.grantId}"] button.deny-grant`);
    await expect.poll(() => page.textContent('#connection')).toBe('grant conversations.list denied');
    await expect.poll(() => page.locator(`#requests li[data-grant-id="${asked.grantId}"]`).count()).toBe(0);
    const refused = await bot.agent.grants.read(asked.grantId).catch((err: unknown) => err);
    expect(isServiceError(refused, 'GRANT_DENIED')).toBe(true);
  });

  it('leaked no secret during the session', async () => {
    await expectNoSecrets(page, seen, [bot.token]);
  });
});
