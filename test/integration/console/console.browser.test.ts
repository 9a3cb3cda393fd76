/**
 * The dev console from a person's point of view, in Debian's Chromium
 * (headless, driven by playwright-core): create a dev user in one click,
 * pick the agent, chat with an echo bot (sealed and opened in the page),
 * see the delivery in the log, advance virtual time; and no secret in a URL,
 * the page's HTML or its console logs.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../../../packages/dev/src/server/index.js';
import { SKIP_BROWSER, SKIP_REASON } from '../../helpers/console-browser.js';
import {
  expectNoSecrets,
  startConsoleBot,
  type SessionRecord,
  startConsoleSession,
  sendFromPage,
} from '../../helpers/console-session.js';

if (SKIP_BROWSER) console.warn(`dev console browser tests ${SKIP_REASON}`);

/** An echo bot for the page's user, in WebSocket or webhook mode, in this process. */
function startEcho(server: ReferenceServer, ownerId: string, mode: 'websocket' | 'webhook' = 'websocket') {
  return startConsoleBot(server, ownerId, {
    name: mode === 'websocket' ? 'Echo bot' : 'Webhook echo',
    mode,
    setup: (agent) =>
      agent.on('message.new', async (msg) => {
        await msg.reply(`echo: ${msg.text ?? ''}`);
      }),
  });
}

describe.skipIf(SKIP_BROWSER)('dev console in Chromium', () => {
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  let seen: SessionRecord;

  beforeAll(async () => {
    ({ server, browser, page, seen } = await startConsoleSession());
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('a person signs up, chats with an echo bot, sees the delivery, and no secret leaks', async () => {
    const started = performance.now();
    await page.goto(`${server.url}/_console/`, { waitUntil: 'load' });
    const loadMs = performance.now() - started;
    console.info(
      `console loaded in ${loadMs.toFixed(0)} ms; script ${(statSync('packages/dev/dist/console/console.js').size / 1024).toFixed(0)} KB`,
    );

    await page.click('#new-user');
    await page.waitForSelector('#user[data-user-id]').catch(async (err: unknown) => {
      throw new Error(`${String(err)}; page says: ${await page.locator('footer').textContent()}`);
    });
    const userId = (await page.getAttribute('#user', 'data-user-id'))!;
    const echo = await startEcho(server, userId);
    try {
      await page.click('#refresh-agents');
      await page.click(`#agents button[data-agent-id="${echo.agentId}"]`);
      await page.waitForSelector('#text:not([disabled])');
      await sendFromPage(page, 'hello from the browser');
      const reply = page.locator('#messages li.theirs');
      await reply.first().waitFor();
      expect(await reply.first().textContent()).toBe('echo: hello from the browser');
      expect(await page.locator('#messages li.mine').first().textContent()).toBe('hello from the browser');

      await page.waitForFunction(() =>
        document.querySelector('#log tbody tr')?.textContent?.includes('delivered'),
      );
      expect(await page.locator('#log tbody').textContent()).toContain('message.new');
      expect(await page.locator('#status [data-field="connection_status"]').textContent()).toBe('ready');
      expect(await page.locator('#curl').textContent()).toContain('curl -sS -X POST');

      // The README's screenshot is refreshed on request only (AMS_UPDATE_SCREENSHOTS=1);
      // every run writes its own under .ci/out, so a test run leaves the tree clean.
      const shot =
        process.env['AMS_UPDATE_SCREENSHOTS'] === '1'
          ? 'docs/images/console.png'
          : '.ci/out/screenshots/console.png';
      mkdirSync(dirname(shot), { recursive: true });
      await page.screenshot({ path: shot });
      expect(statSync(shot).size).toBeGreaterThan(10_000);

      // A reload signs the same user in again (keys from the page's storage) and opens the history.
      await page.reload({ waitUntil: 'load' });
      await page.waitForSelector(`#user[data-user-id="${userId}"]`);
      await page.click(`#agents button[data-agent-id="${echo.agentId}"]`);
      await page.waitForSelector('#messages li.theirs');
      expect(await page.locator('#messages li').allTextContents()).toEqual([
        'hello from the browser',
        'echo: hello from the browser',
      ]);

      await page.fill('#advance-ms', '30000');
      await page.click('#advance');
      await page.waitForFunction(() =>
        document.querySelector('#connection')?.textContent?.startsWith('virtual time'),
      );
      expect(await page.locator('#curl').textContent()).toContain('/_control/clock/advance');

      await expectNoSecrets(page, seen, [echo.token]);
    } catch (err) {
      const footer = await page.locator('footer').textContent();
      throw new Error(
        `${(err as Error).message}; page says: ${footer}; console: ${seen.consoleLines.join(' | ')}`,
        { cause: err },
      );
    } finally {
      await echo.close();
    }
  }, 30_000);

  it('a webhook answering 503 twice is retried at once, then after 30 s: advance time and the echo arrives', async () => {
    const userId = (await page.getAttribute('#user', 'data-user-id'))!;
    const echo = await startEcho(server, userId, 'webhook');
    try {
      await page.click('#refresh-agents');
      await page.click(`#agents button[data-agent-id="${echo.agentId}"]`);
      await page.waitForSelector('#status [data-field="delivery_mode"]:text("webhook")');
      await page.fill('#fail-n', '2');
      await page.click('#fail');
      await page.waitForSelector('#status [data-field="injected_failures_left"]:text("2")');
      expect(await page.locator('#curl').textContent()).toContain('/webhook-faults');

      await sendFromPage(page, 'are you there?');
      await page.waitForSelector('#messages li.mine:text("are you there?")');
      await server.control.deliveryIdle();
      expect(await page.locator('#messages li.theirs').count()).toBe(0);

      await page.fill('#advance-ms', '30000');
      await page.click('#advance');
      await page.waitForSelector('#messages li.theirs:text("echo: are you there?")');
      await page.waitForFunction(() =>
        Array.from(document.querySelectorAll('#log tbody tr')).some(
          (tr) => tr.textContent?.startsWith('message.newdelivered3') === true,
        ),
      );
      expect(await page.locator('#status [data-field="injected_failures_left"]').textContent()).toBe('0');
    } finally {
      await echo.close();
    }
  }, 30_000);

  it('a webhook failing through the whole schedule makes the agent unreachable; Recover delivers what is pending', async () => {
    const userId = (await page.getAttribute('#user', 'data-user-id'))!;
    const echo = await startEcho(server, userId, 'webhook');
    const status = page.locator('#status [data-field="connection_status"]');
    try {
      await page.click('#refresh-agents');
      await page.click(`#agents button[data-agent-id="${echo.agentId}"]`);
      await page.waitForSelector('#status [data-field="delivery_mode"]:text("webhook")');
      await page.fill('#fail-n', '8');
      await page.click('#fail');
      await sendFromPage(page, 'first');
      await page.waitForSelector('#messages li.mine:text("first")');
      for (const seconds of [30, 120, 480, 1920, 7200, 21600]) {
        await server.control.deliveryIdle();
        const before = server.clock.now();
        await page.fill('#advance-ms', String(seconds * 1000));
        await page.click('#advance');
        // The server's clock, not the footer: the footer's status line can flip back to the same
        // text when the user WebSocket reconnects after a large step (a race under load).
        await expect
          .poll(() => server.clock.now(), {
            timeout: 15_000,
            message: `advance ${seconds} s: ${await page.locator('#error').textContent()}`,
          })
          .toBeGreaterThanOrEqual(before + seconds * 1000);
      }
      await server.control.deliveryIdle();
      await page.click('#refresh-agents');
      await page.click(`#agents button[data-agent-id="${echo.agentId}"]`);
      await page.waitForSelector('#status [data-field="connection_status"]:text("unreachable")');
      // The log row of the final attempt can be written just after the status flips: re-open until it shows.
      await expect
        .poll(
          async () => {
            await page.click(`#agents button[data-agent-id="${echo.agentId}"]`);
            await page.waitForSelector('#status [data-field="connection_status"]:text("unreachable")');
            return page.locator('#log tbody tr').first().textContent();
          },
          { timeout: 15_000 },
        )
        .toContain('message.newunreachable8');

      await sendFromPage(page, 'second');
      // "second" waits in the pending queue (with any other event since the agent became unreachable).
      await page.waitForFunction(
        () => Number(document.querySelector('#status [data-field="pending_count"]')?.textContent) >= 1,
      );
      await page.click('#recover');
      await page.waitForSelector('#messages li.theirs:text("echo: second")').catch(async (err: unknown) => {
        const text = async (sel: string) => page.locator(sel).textContent();
        throw new Error(
          `${String(err)} ${await text('footer')} ${await text('#status')} ${await text('#log')}`,
        );
      });
      expect(await status.textContent()).toBe('ready');
      expect(await page.locator('#curl').textContent()).toContain('/recover');
    } finally {
      await echo.close();
    }
  }, 30_000);

  it('is not served when the server is not in dev mode', async () => {
    const prod = await startReferenceServer({ dev: false, passwordHashing: { logN: 10 } });
    try {
      const res = await page.request.get(`${prod.url}/_console/`);
      expect(res.status()).toBe(404);
    } finally {
      await prod.close();
    }
  });
});
