/**
 * The dev console's event inspector and conversation timeline (issue #28) in
 * Debian's Chromium: a click on a delivery in the log opens its headers, the
 * sealed envelope as the service saw it, the decrypted view of the dev user's
 * own message (an agent's or the system's envelope stays sealed), and its
 * attempts with timings and outcomes, a replay's marked as a duplicate; the
 * timeline lists the conversation's deliveries in order with their attempts
 * (acks, webhook answers, the replay); a frame requeued by a dropped
 * WebSocket shows as requeued, then acked; the Timeline button waits for a
 * conversation, with the reason; and neither panel shows a token, a webhook
 * secret, a private key or an access token.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../../packages/sdk/src/agent/index.js';
import type { DuplicateInfo } from '../../../packages/sdk/src/agent/events.js';
import type { ReferenceServer } from '../../../packages/dev/src/server/index.js';
import { SKIP_BROWSER } from '../../helpers/console-browser.js';
import {
  closeConsoleSession,
  expectNoSecrets,
  openAgentChat,
  sendFromPage,
  signInNewUser,
  startConsoleBot,
  startConsoleSession,
  type ConsoleBot,
  type SessionRecord,
} from '../../helpers/console-session.js';

/** Handlers of `hold` wait here until the test releases them. */
let held: Promise<void> = Promise.resolve();

const echo = (duplicates: DuplicateInfo[]) => (agent: Agent) => {
  agent.on('message.new', async (msg) => {
    if (msg.text === 'hold') await held;
    await msg.reply(`echo: ${msg.text ?? ''}`);
  });
  agent.on('duplicate', (d) => duplicates.push(d));
};

describe.skipIf(SKIP_BROWSER)('dev console in Chromium: event inspector and timeline', () => {
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  let seen: SessionRecord;
  let userId: string;
  const bots: ConsoleBot[] = [];
  const duplicates: DuplicateInfo[] = [];

  beforeAll(async () => {
    ({ server, browser, page, seen } = await startConsoleSession());
    userId = await signInNewUser(page, server);
  }, 30_000);

  afterAll(() => closeConsoleSession({ browser, server }, bots));

  const inspector = () => page.locator('#inspector');
  const section = (name: string) => page.locator(`#inspector dl[data-section="${name}"]`);
  const valueOf = async (name: string, label: string) =>
    section(name)
      .locator('dt', { hasText: label })
      .first()
      .evaluate((dt) => dt.nextElementSibling?.textContent ?? '');

  it('the Timeline button waits for an open conversation, with the reason', async () => {
    expect(await page.locator('#show-timeline').isDisabled()).toBe(true);
    expect(await page.locator('#show-timeline').getAttribute('title')).toMatch(
      /^Open an agent's chat or a group/,
    );
    expect(await page.locator('#timeline-reason').isVisible()).toBe(true);
    const bot = await startConsoleBot(server, userId, { name: 'Inspected echo', setup: echo(duplicates) });
    bots.push(bot);
    await openAgentChat(page, bot.agentId);
    await page.waitForSelector('#show-timeline:not([disabled])');
    expect(await page.locator('#timeline-reason').isHidden()).toBe(true);
  });

  it('a click on a delivery opens its headers, envelope, decrypted message and attempts; a replay is marked a duplicate', async () => {
    const bot = bots[0]!;
    await sendFromPage(page, 'inspect me');
    await page.waitForSelector('#messages li.theirs:text-is("echo: inspect me")');
    const row = page.locator('#log tbody tr[data-delivery-id]', { hasText: 'message.newdelivered' }).first();
    await row.waitFor();
    const deliveryId = (await row.getAttribute('data-delivery-id'))!;
    // A click on the row (not on a button) opens the inspector.
    await row.locator('td').nth(4).click();
    await page.waitForSelector(`#inspector[data-delivery-id="${deliveryId}"]:visible`);
    expect(await valueOf('summary', 'state')).toBe('delivered');
    expect(await valueOf('summary', 'from')).toBe('you');
    expect(await valueOf('body', 'delivery_id')).toBe(deliveryId);
    expect(await valueOf('body', 'metadata.sender_id')).toBe(userId);
    // The envelope as the service saw it: its clear header, the ciphertext only as a size.
    expect(await valueOf('envelope', 'format')).toMatch(/^AMS envelope v1\.\d$/);
    expect(await valueOf('envelope', 'sender')).toBe(userId);
    const recipients = await section('envelope').locator('dt', { hasText: 'recipient' }).count();
    expect(recipients).toBeGreaterThanOrEqual(1);
    expect(await valueOf('envelope', 'ciphertext')).toMatch(/^\d+ bytes \(sealed\)$/);
    expect(await section('envelope').textContent()).not.toContain('inspect me');
    // The dev user's own message opens in the page.
    const opened = page.locator('#inspector pre.decrypted');
    expect(await opened.getAttribute('data-opened')).toBe('true');
    expect(JSON.parse((await opened.textContent())!)).toMatchObject({ type: 'text', text: 'inspect me' });
    // Attempts with timing and outcome: one WebSocket frame, acknowledged by the bot.
    const attempts = page.locator('#inspector ol.inspector-attempts li');
    expect(await attempts.count()).toBe(1);
    expect(await attempts.first().getAttribute('data-outcome')).toBe('acked');
    expect(await attempts.first().textContent()).toMatch(
      /^#1 \d\d:\d\d:\d\d WebSocket conn \d+ acked after \d+ ms$/,
    );

    // Replay it (the log's button, under the inspector: close it first with Escape).
    await page.keyboard.press('Escape');
    expect(await inspector().isHidden()).toBe(true);
    await row.locator('button.replay').click();
    await expect.poll(() => duplicates.map((d) => d.deliveryId)).toEqual([deliveryId]);
    await row.locator('button.inspect').click();
    // The panel follows the live feed: the replay's attempt shows once acknowledged, marked a duplicate.
    const duplicate = page.locator('#inspector ol.inspector-attempts li[data-duplicate="true"]');
    await duplicate.waitFor();
    await page.waitForSelector(
      '#inspector ol.inspector-attempts li[data-duplicate="true"][data-outcome="acked"]',
    );
    expect(await duplicate.locator('.duplicate').textContent()).toBe('replay 1: duplicate');
    expect(await valueOf('summary', 'replays')).toBe('1 (same delivery id: duplicates)');
    await expect.poll(() => page.locator('#inspector ul.inspector-outcomes li').count()).toBe(2);
    expect(await page.locator('#inspector ul.inspector-outcomes li').last().textContent()).toContain(
      '(replay)',
    );
    expect(
      await page.locator(`#agents button[data-agent-id="${bot.agentId}"]`).getAttribute('data-online'),
    ).toBe('true');
    // docs/console.md's picture of the inspector, refreshed on request only (AMS_UPDATE_SCREENSHOTS=1),
    // as console.browser.test.ts does for the README's; every run writes its own under .ci/out.
    const shot =
      process.env['AMS_UPDATE_SCREENSHOTS'] === '1'
        ? 'docs/images/console-inspector.png'
        : '.ci/out/screenshots/console-inspector.png';
    mkdirSync(dirname(shot), { recursive: true });
    await page.screenshot({ path: shot });
    expect(statSync(shot).size).toBeGreaterThan(10_000);
  });

  it("the timeline lists the conversation's deliveries in order with their attempts; one opens in the inspector", async () => {
    await sendFromPage(page, 'second');
    await page.waitForSelector('#messages li.theirs:text-is("echo: second")');
    await page.click('#show-timeline');
    const items = page.locator('#timeline ol.timeline li');
    // In the order queued: the relation the chat established (from the system), then the two messages.
    await expect.poll(() => items.count()).toBe(3);
    await page.waitForSelector('#timeline ol.timeline li:nth-child(3)[data-state="delivered"]');
    expect(await items.nth(0).locator('button.inspect').textContent()).toMatch(
      /^\d\d:\d\d:\d\d relation\.established system → Inspected echo$/,
    );
    const first = items.nth(1);
    expect(await first.locator('button.inspect').textContent()).toMatch(
      /^\d\d:\d\d:\d\d message\.new you → Inspected echo$/,
    );
    // The first was replayed: two acknowledged frames, the second a duplicate.
    expect(await first.locator('.mark').evaluateAll((m) => m.map((e) => e.textContent))).toEqual([
      expect.stringMatching(/^#1 ws acked \d+ ms$/),
      expect.stringMatching(/^#2 ws acked \d+ ms$/),
    ]);
    expect(await first.locator('.mark[data-duplicate="true"]').count()).toBe(1);
    expect(await first.locator('.duplicate').textContent()).toBe('same id ×2');
    expect(await items.nth(2).locator('.mark').count()).toBe(1);
    // A click opens the delivery in the inspector (the timeline closes).
    const secondId = (await items.nth(2).getAttribute('data-delivery-id'))!;
    await items.nth(2).locator('button.inspect').click();
    await page.waitForSelector(`#inspector[data-delivery-id="${secondId}"]:visible`);
    expect(await page.locator('#timeline').isHidden()).toBe(true);
    expect(JSON.parse((await page.locator('#inspector pre.decrypted').textContent())!)).toMatchObject({
      text: 'second',
    });
    await page.keyboard.press('Escape');
  });

  it('a frame requeued by a dropped WebSocket and sent again shows both attempts, requeued then acked', async () => {
    const bot = bots[0]!;
    let release!: () => void;
    held = new Promise<void>((resolve) => (release = resolve));
    await sendFromPage(page, 'hold');
    // The bot holds the event: it waits for its ack, listed as pending above the log.
    const row = page.locator('#log tbody tr[data-pending="true"]', { hasText: 'awaiting_ack' });
    await row.waitFor();
    const deliveryId = (await row.getAttribute('data-delivery-id'))!;
    await page.click('#drop-ws');
    release();
    await page.waitForSelector('#messages li.theirs:text-is("echo: hold")');
    // The bot reconnects on its backoff (the server's virtual clock): step it until it is back.
    await expect
      .poll(
        async () => {
          await page.click('#advance');
          return page.locator('#status [data-field="websocket_connections"]').textContent();
        },
        { timeout: 15_000 },
      )
      .toBe('1');
    await page.click(`#log tbody tr[data-delivery-id="${deliveryId}"] button.inspect`);
    // The frame comes again on the new connection; the bot acknowledges it on its clock (the server's
    // virtual clock, whose time moves only when the page advances it): step it until the ack shows.
    const acked = page.locator('#inspector ol.inspector-attempts li:nth-child(2)[data-outcome="acked"]');
    await expect
      .poll(
        async () => {
          if ((await acked.count()) === 0) await page.click('#advance');
          return acked.count();
        },
        { timeout: 15_000 },
      )
      .toBe(1);
    expect(
      await page
        .locator('#inspector ol.inspector-attempts li')
        .evaluateAll((li) => li.map((e) => e.textContent)),
    ).toEqual([
      expect.stringMatching(
        /^#1 \d\d:\d\d:\d\d WebSocket conn \d+ requeued \(connection closed after \d+ ms\)$/,
      ),
      expect.stringMatching(/^#2 \d\d:\d\d:\d\d WebSocket conn \d+ acked after \d+ ms$/),
    ]);
    // Not a replay: no duplicate mark. The timeline shows the same two attempts as marks.
    expect(await page.locator('#inspector li[data-duplicate]').count()).toBe(0);
    await page.click('#show-timeline');
    const item = page.locator(`#timeline li[data-delivery-id="${deliveryId}"] .mark`);
    await expect
      .poll(() => item.allTextContents())
      .toEqual(['#1 ws requeued', expect.stringMatching(/^#2 ws acked \d+ ms$/)]);
    await page.keyboard.press('Escape');
    expect(bot.agentId).toBeTruthy();
  });

  it('a webhook delivery shows the HTTP headers it was sent with (never the secret); a system event stays sealed', async () => {
    const hook = await startConsoleBot(server, userId, {
      name: 'Hooked echo',
      mode: 'webhook',
      setup: echo([]),
    });
    bots.push(hook);
    await openAgentChat(page, hook.agentId);
    await page.waitForSelector('#status [data-field="delivery_mode"]:text("webhook")');
    await page.fill('#fail-n', '1');
    await page.click('#fail');
    await page.waitForSelector('#status [data-field="injected_failures_left"]:text("1")');
    await sendFromPage(page, 'by webhook');
    await page.waitForSelector('#messages li.theirs:text-is("echo: by webhook")');
    const row = page.locator('#log tbody tr[data-delivery-id]', { hasText: 'message.newdelivered' }).first();
    await row.waitFor();
    await row.locator('button.inspect').click();
    await page.waitForSelector('#inspector dl[data-section="http-headers"]');
    const lines = await page
      .locator('#inspector ol.inspector-attempts li')
      .evaluateAll((li) => li.map((e) => e.textContent));
    expect(lines).toEqual([
      expect.stringMatching(/^#1 \d\d:\d\d:\d\d HTTP 503 temporary \d+ ms, next \d\d:\d\d:\d\d$/),
      expect.stringMatching(/^#2 \d\d:\d\d:\d\d HTTP 200 delivered \d+ ms$/),
    ]);
    const headers = await section('http-headers').locator('dt').allTextContents();
    expect(headers).toContain('content-type');
    expect(headers.some((h) => h.includes('signature'))).toBe(true);
    expect(await page.locator('#inspector h4', { hasText: 'HTTP headers' }).textContent()).toBe(
      'HTTP headers of webhook attempt #2',
    );
    expect(await inspector().innerHTML()).not.toContain(hook.webhookSecret!);
    await page.keyboard.press('Escape');

    // A system event to the agent: sealed by the system sender, so the page cannot open it.
    await server.control.sendSystemEvent(hook.agentId, 'system.notice', { text: 'sealed for the agent' });
    const event = page.locator('#log tbody tr[data-delivery-id]', { hasText: 'system.notice' }).first();
    await event.waitFor();
    await event.locator('button.inspect').click();
    await page.waitForSelector('#inspector pre.decrypted[data-opened="false"]');
    expect(await page.locator('#inspector pre.decrypted').textContent()).toMatch(
      /^Sealed by .+: only its recipients' keys open it/,
    );
    expect(await inspector().innerHTML()).not.toContain('sealed for the agent');
  });

  it('neither panel, the page, its storage nor its traffic holds a token, secret, key or access token', async () => {
    // Both panels are in the page's HTML (the inspector open, the timeline drawn before).
    await page.click('#show-timeline');
    await page.waitForSelector('#timeline ol.timeline');
    const drawers = `${await page.locator('#timeline').innerHTML()}${await inspector().innerHTML()}`;
    const stored = await page.evaluate(() => ({ ...localStorage }));
    expect(Object.keys(stored)).toEqual(['ams-console-user']);
    const keys = JSON.parse(stored['ams-console-user']!) as {
      encryptionPrivate: string;
      signingPrivate: string;
    };
    for (const bot of bots) {
      expect(drawers).not.toContain(bot.token);
      if (bot.webhookSecret !== undefined) expect(drawers).not.toContain(bot.webhookSecret);
    }
    for (const key of [keys.encryptionPrivate, keys.signingPrivate]) expect(drawers).not.toContain(key);
    // The access token the page signs in with travels in headers only, never in a panel.
    const accessTokens = seen.responseText.flatMap((t) =>
      [...t.matchAll(/"access_token":"([^"]+)"/g)].map((m) => m[1]!),
    );
    expect(accessTokens.length).toBeGreaterThan(0);
    for (const t of accessTokens) expect(drawers).not.toContain(t);
    await expectNoSecrets(
      page,
      seen,
      bots.flatMap((b) => [b.token, ...(b.webhookSecret === undefined ? [] : [b.webhookSecret])]),
    );
  });
});
