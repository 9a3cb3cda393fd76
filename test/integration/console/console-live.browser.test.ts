/**
 * The dev console updating by itself, in Debian's Chromium: the test (not the
 * page) makes the webhook fail and moves the server's clock, and each retry
 * attempt, the agent turning `unreachable`, a WebSocket delivery acked, the
 * agent's socket dropped and back, a group made elsewhere and an artifact
 * revised by the bot all show up without a click. The live feed carries no
 * secret.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../../packages/sdk/src/agent/index.js';
import type { ArtifactHandle } from '../../../packages/sdk/src/agent/artifacts.js';
import { WEBHOOK_RETRY_SCHEDULE_MS } from '../../../packages/sdk/src/core/limits.js';
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
  openAgentChat,
  sendFromPage,
} from '../../helpers/console-session.js';

const echo = (agent: Agent) => {
  agent.on('message.new', async (msg) => {
    await msg.reply(`echo: ${msg.text ?? ''}`);
  });
};

describe.skipIf(SKIP_BROWSER)('dev console in Chromium: live without a click', () => {
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  let seen: SessionRecord;
  let userId: string;
  const bots: ConsoleBot[] = [];

  /** A control call made by the test, never by the page. */
  async function control(method: string, path: string, json?: unknown): Promise<Record<string, unknown>> {
    const res = await fetch(`${server.url}${path}`, {
      method,
      ...(json === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(json) }),
    });
    const body = (await res.json()) as { data: Record<string, unknown> };
    expect(res.status, path).toBeLessThan(300);
    return body.data;
  }

  const advance = (ms: number) => control('POST', '/_control/clock/advance', { ms });
  const field = (name: string) => page.locator(`#status [data-field="${name}"]`);

  beforeAll(async () => {
    ({ server, browser, page, seen } = await startConsoleSession());
    userId = await signInNewUser(page, server);
  }, 30_000);

  afterAll(() => closeConsoleSession({ browser, server }, bots));

  async function openBot(bot: ConsoleBot): Promise<void> {
    bots.push(bot);
    await openAgentChat(page, bot.agentId);
    await page.waitForSelector('#feed-state[data-state="live"]');
  }

  async function say(text: string): Promise<void> {
    await sendFromPage(page, text);
  }

  it('each retry attempt on the schedule, then `unreachable`, appear as the test moves the clock', async () => {
    const bot = await startConsoleBot(server, userId, { name: 'Hook', mode: 'webhook', setup: echo });
    await openBot(bot);
    // The test, not the page, makes the webhook fail on every attempt of the schedule.
    await control('POST', `/_control/agents/${bot.agentId}/webhook-faults`, {
      status: 503,
      count: WEBHOOK_RETRY_SCHEDULE_MS.length + 1,
    });
    await say('anyone there?');
    const pending = page.locator('#log tbody tr[data-pending="true"]');
    await pending.waitFor();
    const deliveryId = (await pending.getAttribute('data-delivery-id'))!;
    const attempts = page.locator(`#log tr[data-attempts-of="${deliveryId}"] li`);
    // The first attempt and the immediate retry (schedule 0 s) failed.
    await expect.poll(() => attempts.count()).toBe(2);
    expect(await pending.locator('td').nth(1).textContent()).toBe('retrying');
    expect(await attempts.nth(0).textContent()).toMatch(
      /^#1 \d\d:\d\d:\d\d HTTP 503 temporary \d+ ms, next \d\d:\d\d:\d\d$/,
    );
    for (let i = 1; i < WEBHOOK_RETRY_SCHEDULE_MS.length; i++) {
      await advance(WEBHOOK_RETRY_SCHEDULE_MS[i]!);
      await expect.poll(() => attempts.count()).toBe(i + 2);
    }
    // The schedule ran out: the agent is unreachable, shown by itself.
    await page.waitForSelector('#status [data-field="connection_status"]:text-is("unreachable")');
    const row = page.locator(`#log tbody tr[data-delivery-id="${deliveryId}"]:not([data-pending])`);
    expect(await row.locator('td').nth(1).textContent()).toBe('unreachable');
    expect(await attempts.last().textContent()).toMatch(/HTTP 503 temporary \d+ ms$/);
    // Recovered by the test: the delivery is made, the chat gets the echo, the status is ready.
    await control('POST', `/_control/agents/${bot.agentId}/webhook-faults`, { status: 503, count: 0 });
    await control('POST', `/_control/agents/${bot.agentId}/recover`);
    await page.waitForSelector('#messages li.theirs:text-is("echo: anyone there?")');
    await page.waitForSelector('#status [data-field="connection_status"]:text-is("ready")');
  });

  it('a WebSocket delivery: its frame shows acked, with its connection and latency', async () => {
    const bot = await startConsoleBot(server, userId, { name: 'Echo', setup: echo });
    await openBot(bot);
    await say('ws?');
    await page.waitForSelector('#messages li.theirs:text-is("echo: ws?")');
    const row = page.locator('#log tbody tr[data-delivery-id]:not([data-pending])', {
      hasText: 'message.newdelivered',
    });
    await row.first().waitFor();
    const deliveryId = (await row.first().getAttribute('data-delivery-id'))!;
    const attempts = page.locator(`#log tr[data-attempts-of="${deliveryId}"] li`);
    if ((await attempts.count()) === 0) await row.first().locator('button.show-attempts').click();
    await expect.poll(() => attempts.count()).toBe(1);
    expect(await attempts.first().textContent()).toMatch(
      /^#1 \d\d:\d\d:\d\d WebSocket conn \d+ acked after \d+ ms$/,
    );
  });

  it("dropping the agent's socket from the test shows 0 connections, then 1 when it is back", async () => {
    const bot = bots[1]!;
    await page.waitForSelector('#status [data-field="websocket_connections"]:text-is("1")');
    expect(await control('POST', `/_control/agents/${bot.agentId}/websocket/drop`)).toMatchObject({
      closed: 1,
    });
    await page.waitForSelector('#status [data-field="websocket_connections"]:text-is("0")');
    // The bot's reconnect backoff runs on the server's clock: the test steps it.
    await expect
      .poll(
        async () => {
          await advance(5_000);
          return field('websocket_connections').textContent();
        },
        { timeout: 15_000 },
      )
      .toBe('1');
  });

  it('an agent created elsewhere (ams dev bootstrap, a control call) is listed without a click', async () => {
    const made = await server.control.createAgent({ ownerId: userId, name: 'Made in a terminal' });
    await page.waitForSelector(
      `#agents button[data-agent-id="${made.agentId}"]:text-is("Made in a terminal")`,
    );
  });

  it('a group made elsewhere is listed without a click', async () => {
    const t = await control('POST', '/_control/users/access-token', { user_id: userId });
    const res = await fetch(`${server.url}/groups`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${String(t['access_token'])}` },
      body: JSON.stringify({ name: 'Made elsewhere', agent_ids: [bots[1]!.agentId] }),
    });
    expect(res.status).toBe(201);
    await page.waitForSelector('#groups button:text-is("Made elsewhere")');
  });

  it('an artifact revised by the bot updates its card in place; the answer goes with the newest revision', async () => {
    const sent: ArtifactHandle[] = [];
    const bot = await startConsoleBot(server, userId, {
      name: 'Asker',
      setup: (agent) =>
        agent.on('message.new', async (msg) => {
          sent.push(
            await agent.artifacts.send(msg.conversationId, {
              content: { kind: 'confirm', title: 'Deploy v1?' },
            }),
          );
        }),
    });
    await openBot(bot);
    await say('deploy');
    const cards = page.locator('#messages li.artifact');
    await page.waitForSelector('#messages li.artifact strong:text-is("Deploy v1?")');
    await expect.poll(() => sent.length).toBe(1);
    expect(await sent[0]!.update(() => ({ content: { kind: 'confirm', title: 'Deploy v2?' } }))).toBe(2);
    await page.waitForSelector('#messages li.artifact[data-revision="2"] strong:text-is("Deploy v2?")');
    expect(await cards.count()).toBe(1);
    expect(await cards.locator('.revision').textContent()).toBe(' revision 2');
    await cards.locator('button.approve').click();
    await page.waitForSelector('#messages li.artifact .outcome:text-is("approved")');
  });

  it('the page does not poll: idle, it sends no request; the feed comes back after a server restart', async () => {
    await page.waitForSelector('#feed-state[data-state="live"]');
    // Let what the last test set going settle (the bot's answer to the artifact is pushed too).
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    for (let n = -1, tries = 0; n !== seen.urls.length && tries < 20; tries++) {
      n = seen.urls.length;
      await sleep(500);
    }
    const before = seen.urls.length;
    await sleep(1_500);
    expect(seen.urls.slice(before)).toEqual([]);
    await server.restart({ downtimeMs: 500 });
    await page.waitForSelector('#feed-state[data-state="reconnecting"]');
    await page.waitForSelector('#feed-state[data-state="live"]');
    // Back on the new listener: the next change is shown by itself again.
    const bot = bots.at(-1)!;
    await control('POST', `/_control/agents/${bot.agentId}/websocket/drop`);
    await page.waitForSelector('#status [data-field="websocket_connections"]:text-is("0")');
  });

  it('no token, webhook secret or key material in the session, the live feed included', async () => {
    expect(seen.eventSourceText.length).toBeGreaterThan(0);
    expect(seen.eventSourceText.some((d) => d.includes('"type":"attempt_finished"'))).toBe(true);
    await expectNoSecrets(page, seen, [
      ...bots.map((b) => b.token),
      ...bots.flatMap((b) => (b.webhookSecret === undefined ? [] : [b.webhookSecret])),
    ]);
  });
});
