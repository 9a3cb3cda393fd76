/**
 * The dev console renders what an agent sends as a real client would, from a
 * person's point of view in Debian's Chromium: a streamed reply growing as its
 * deltas arrive (opened with WebCrypto, end signature checked in the page), a
 * form approved with data, a confirmation denied with a reason, and a
 * high-sensitivity confirmation left to time out — each answer sealed in the
 * page; and no secret in the session.
 */
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../../packages/sdk/src/agent/index.js';
import type { ArtifactOutcome } from '../../../packages/sdk/src/agent/artifacts.js';
import type { ArtifactContent } from '../../../packages/sdk/src/core/protocol/artifacts.js';
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

function describeOutcome(o: ArtifactOutcome): string {
  if (o.status === 'approved') return `approved ${JSON.stringify(o.data)}`;
  if (o.status === 'denied') return `denied ${o.reason} by ${o.by}`;
  return o.status;
}

/** File keys the bot sent (sealed: they must appear nowhere in the page's traffic or DOM). */
const fileKeys: string[] = [];

/** A bot answering `file`, `stream`, `form`, `confirm` and `confirm-high`. */
function richBot(gate: { release: () => void; opened: Promise<void> }) {
  return (agent: Agent) => {
    agent.on('message.new', async (msg) => {
      const c = msg.conversationId;
      if (msg.text === 'file') {
        const bytes = new TextEncoder().encode('hello, file from the bot');
        const { file } = await agent.files.upload(c, bytes, { name: 'hello.txt', contentType: 'text/plain' });
        fileKeys.push(file.key);
        return;
      }
      if (msg.text === 'stream') {
        const w = await agent.stream(c, { coalesceMs: 0 });
        await w.write('Hel');
        await gate.opened;
        await w.write('lo, world');
        await w.end();
        return;
      }
      const content: ArtifactContent =
        msg.text === 'form'
          ? ({
              kind: 'form',
              title: 'Ship to',
              fields: [
                { name: 'city', label: 'City', input: 'text', required: true },
                { name: 'speed', label: 'Speed', input: 'choice', options: ['slow', 'fast'] },
                { name: 'gift', label: 'Gift wrap', input: 'boolean' },
              ],
            } satisfies ArtifactContent)
          : ({
              kind: 'confirm',
              title: `Delete 3 files? (${msg.text ?? ''})`,
              body: 'They go for good.',
            } satisfies ArtifactContent);
      const artifact = await agent.artifacts.send(c, {
        content,
        sensitivity: msg.text === 'confirm-high' ? 'high' : 'normal',
      });
      // Not awaited in the handler: the answer is another event of the same conversation.
      void artifact.response({ timeoutMs: 86_400_000 }).then((o) => msg.reply(describeOutcome(o)));
    });
    agent.on('error', (err) => console.error('bot error', err));
    // A 👍 from the human is answered with a 🎉 on the same message.
    agent.on('reaction.update', async (r) => {
      if (r.emoji === '👍' && r.action === 'add')
        await agent.react(r.conversationId, r.targetMessageId, '🎉');
    });
  };
}

describe.skipIf(SKIP_BROWSER)('dev console in Chromium: streamed replies and artifacts', () => {
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  let seen: SessionRecord;
  let bot: ConsoleBot;
  let release = () => undefined as void;
  const opened = new Promise<void>((resolve) => (release = resolve));

  beforeAll(async () => {
    ({ server, browser, page, seen } = await startConsoleSession());
    const userId = await signInNewUser(page, server);
    bot = await startConsoleBot(server, userId, { name: 'Rich bot', setup: richBot({ release, opened }) });
    await openAgentChat(page, bot.agentId);
  }, 30_000);

  afterAll(() => closeConsoleSession({ browser, server }, [bot]));

  async function say(text: string): Promise<void> {
    await sendFromPage(page, text);
  }

  it('a streamed reply grows as its deltas arrive, then ends verified', async () => {
    await say('stream');
    const bubble = page.locator('#messages li.stream');
    // The first delta is on screen while the bot still holds the rest back.
    await page.waitForSelector('#messages li.stream[data-state="streaming"]:text-is("Hel")');
    release();
    await page.waitForSelector('#messages li.stream[data-state="ended"]');
    expect(await bubble.textContent()).toBe('Hello, world');
    expect(await bubble.getAttribute('title')).toBe('2 deltas; end signature verified');
  });

  it('a form is filled in and approved with its data; the bot gets the data', async () => {
    await say('form');
    const card = page.locator('#messages li.artifact[data-state="open"]');
    await card.waitFor();
    expect(await card.locator('strong').textContent()).toBe('Ship to');
    // A required field left empty is refused in the page, nothing is sent.
    await card.locator('button.approve').click();
    await expect.poll(() => card.locator('.outcome').textContent()).toBe('missing required field city');
    await card.locator('[name="city"]').fill('Lyon');
    await card.locator('[name="speed"]').selectOption('fast');
    await card.locator('[name="gift"]').check();
    await card.locator('button.approve').click();
    await page.waitForSelector('#messages li.artifact[data-state="answered"] .outcome:text-is("approved")');
    await page.waitForSelector(
      '#messages li.theirs:text-is(\'approved {"city":"Lyon","speed":"fast","gift":true}\')',
    );
    expect(await page.locator('#curl').textContent()).toMatch(/\/artifacts\/[^/]+\/answer/);
  });

  it('a confirmation is denied with a reason', async () => {
    await say('confirm');
    const card = page.locator('#messages li.artifact[data-state="open"]');
    await card.waitFor();
    expect(await card.locator('p').first().textContent()).toBe('They go for good.');
    await card.locator('[name="deny-reason"]').selectOption('user_rejected');
    await card.locator('button.deny').click();
    await page.waitForSelector('#messages li.theirs:text-is("denied user_rejected by user")');
    // The bot's reply can arrive before the answer's own response.
    await expect
      .poll(() => page.locator('#messages li.artifact .outcome').last().textContent())
      .toBe('denied (user_rejected)');
  });

  it('a high-sensitivity confirmation left 30 s times out; answering it late shows it closed', async () => {
    await say('confirm-high');
    const card = page.locator('#messages li.artifact[data-state="open"]');
    await card.waitFor();
    await page.fill('#advance-ms', '30000');
    await page.click('#advance');
    await page.waitForSelector('#messages li.theirs:text-is("denied user_timeout by service")');
    await card.locator('button.approve').click();
    await page.waitForSelector(
      '#messages li.artifact[data-state="denied"] .outcome:text-is("already closed: denied (user_timeout)")',
    );
  });

  it('a 👍 from the page reaches the bot, whose 🎉 shows on the same message', async () => {
    const reply = page.locator('#messages li.theirs:text-is("denied user_rejected by user")');
    await reply.locator('button.react').click();
    // Shown in arrival order: the bot's 🎉 may come over the WebSocket before the page's own POST returns.
    await expect
      .poll(async () => ((await reply.getAttribute('data-reactions')) ?? '').split(' ').sort())
      .toEqual(['👍', '🎉'].sort());
    expect(await page.locator('#curl').textContent()).toContain('/reactions');
    // A screenshot of the rendered stream, cards and reactions (under .ci/out, not committed).
    mkdirSync('.ci/out/screenshots', { recursive: true });
    await page.screenshot({ path: '.ci/out/screenshots/console-replies.png' });
    expect(statSync('.ci/out/screenshots/console-replies.png').size).toBeGreaterThan(10_000);
  });

  it('a file from the bot is fetched, checked and decrypted in the page, then saved', async () => {
    await say('file');
    const bubble = page.locator('#messages li.file');
    await bubble.waitFor();
    expect(await bubble.textContent()).toContain('📎 hello.txt (24 bytes)');
    const download = page.waitForEvent('download');
    await bubble.locator('button.download').click();
    const saved = await download;
    expect(saved.suggestedFilename()).toBe('hello.txt');
    expect(readFileSync(await saved.path()).toString('utf8')).toBe('hello, file from the bot');
    await page.waitForSelector('#messages li.file[data-state="decrypted"]');
    expect(await page.locator('#curl').textContent()).toMatch(
      /-X GET '[^']+\/r2\/[^']+' -H "authorization: Bearer \$AMS_ACCESS_TOKEN"/,
    );
  });

  it('no token or key material in the whole session', async () => {
    expect(fileKeys).toHaveLength(1);
    await expectNoSecrets(page, seen, [bot.token, ...fileKeys]);
  });
});
