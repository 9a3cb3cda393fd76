/**
 * Switching the selected agent between webhook and WebSocket delivery from
 * the dev console, in Debian's Chromium: *Use webhook* registers the address
 * and downloads the secret (never shown in the page); a real SDK Agent in
 * webhook mode verifies deliveries with that secret and answers the page;
 * *Use WebSocket* removes the webhook.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../../packages/sdk/src/agent/index.js';
import type { ReferenceServer } from '../../../packages/dev/src/server/index.js';
import { startWebhookHost, type WebhookHost } from '../../../packages/dev/src/testing/test-world-parts.js';
import { SKIP_BROWSER } from '../../helpers/console-browser.js';
import {
  clickForEnv,
  consoleAgent,
  expectNoSecrets,
  startConsoleSession,
  type SessionRecord,
  signInNewUser,
  openAgentChat,
  sendFromPage,
} from '../../helpers/console-session.js';

describe.skipIf(SKIP_BROWSER)('dev console in Chromium: webhook or WebSocket delivery', () => {
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  let seen: SessionRecord;
  let hook: WebhookHost;
  let agent: Agent;
  let agentId: string;
  let token: string;

  beforeAll(async () => {
    ({ server, browser, page, seen } = await startConsoleSession());
    const ownerId = await signInNewUser(page, server);
    ({ agentId, token } = await server.control.createAgent({ ownerId, name: 'Hooked' }));
    agent = await consoleAgent(server, { agentId, token }, 'webhook');
    agent.on('message.new', async (msg) => {
      await msg.reply(`hooked: ${msg.text ?? ''}`);
    });
    hook = await startWebhookHost();
    await openAgentChat(page, agentId);
  }, 30_000);

  afterAll(async () => {
    await agent?.close({ timeoutMs: 2_000 });
    await hook?.close();
    await browser?.close();
    await server?.close();
  });

  const field = (name: string) => page.locator(`#status [data-field="${name}"]`).textContent();

  it('refuses an empty address in the page', async () => {
    await page.click('#use-webhook');
    await expect
      .poll(() => page.textContent('#error'))
      .toBe('error: Type the address of your webhook receiver first.');
  });

  it('registers the webhook, hands the secret over as a file, and the bot answers by webhook', async () => {
    await page.fill('#webhook-url', hook.url);
    const { name, env } = await clickForEnv(page, '#use-webhook');
    expect(name).toBe('ams-agent-hooked-webhook.env');
    const secret = env['AMS_WEBHOOK_SECRET']!;
    expect(secret.length).toBeGreaterThanOrEqual(32);
    agent.webhook({ secret });
    hook.use(agent.webhookHandler());
    await expect.poll(() => field('delivery_mode')).toBe('webhook');
    expect(await page.textContent('#curl')).toContain(`-X PUT '${server.url}/agents/${agentId}/webhook'`);

    await sendFromPage(page, 'by webhook');
    // The events queued before the bot had the secret were tried at once and failed (503: no receiver
    // yet); the next attempt of the retry schedule, 30 s later, delivers them in order.
    await fetch(`${server.url}/_control/clock/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ms: 30_000 }),
    });
    await page.waitForSelector('#messages li.theirs:text-is("hooked: by webhook")');
    await expectNoSecrets(page, seen, [token]);
    const visible = [...seen.urls, ...seen.requestText, ...seen.consoleLines, await page.content()].join(
      '\n',
    );
    expect(visible).not.toContain(secret);
  });

  it('goes back to WebSocket mode', async () => {
    await page.click('#use-websocket');
    await expect.poll(() => field('delivery_mode')).toBe('websocket');
    await expect.poll(() => page.textContent('#connection')).toBe('WebSocket mode: the webhook is removed');
  });
});
