/**
 * Sending a file from the dev console, in Debian's Chromium: the page
 * encrypts the picked file (AMSF v1 on WebCrypto), uploads the ciphertext
 * and its SHA-256, and sends the sealed `file` message; the SDK bot
 * downloads, verifies and decrypts it byte for byte (multi-chunk and empty
 * files), and the page can download its own file back.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
} from '../../helpers/console-session.js';

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

describe.skipIf(SKIP_BROWSER)('dev console in Chromium: sending a file', () => {
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  let seen: SessionRecord;
  let bot: ConsoleBot;
  const received = new Map<string, { sha256: string; size: number; type: string }>();

  beforeAll(async () => {
    ({ server, browser, page, seen } = await startConsoleSession());
    const userId = await signInNewUser(page, server);
    bot = await startConsoleBot(server, userId, {
      name: 'Files',
      setup: (agent) => {
        agent.on('message.new', async (msg) => {
          if (msg.payload.type !== 'file') return;
          const file = await agent.files.download(msg.payload);
          const bytes = await file.toBytes();
          received.set(file.name, { sha256: sha(bytes), size: bytes.length, type: file.contentType });
          await msg.reply(`got ${file.name}: ${bytes.length} bytes`);
        });
      },
    });
    await openAgentChat(page, bot.agentId);
  }, 30_000);

  afterAll(() => closeConsoleSession({ browser, server }, [bot]));

  it.each([
    ['report.bin', 'application/octet-stream', randomBytes(200_000)],
    ['empty.txt', 'text/plain', Buffer.alloc(0)],
    ['note.txt', 'text/plain', Buffer.from('hello from the browser ✓\n')],
  ])('the bot receives %s byte for byte', async (name, mimeType, buffer) => {
    await page.setInputFiles('#file', { name, mimeType, buffer });
    await page.waitForSelector(`#messages li.theirs:text-is("got ${name}: ${buffer.length} bytes")`);
    expect(received.get(name)).toEqual({ sha256: sha(buffer), size: buffer.length, type: mimeType });
    expect(await page.textContent('#curl')).toMatch(/-X POST '.+\/conversations\/[^/]+\/files'/);
  });

  it('shows the sent file in the chat, and downloads it back decrypted in the page', async () => {
    const mine = page.locator('#messages li.mine.file', { hasText: 'note.txt' });
    await mine.waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      mine.locator('button.download').click(),
    ]);
    expect(download.suggestedFilename()).toBe('note.txt');
    expect(await mine.getAttribute('data-state')).toBe('decrypted');
  });

  it('leaked no secret during the session', async () => {
    await expectNoSecrets(page, seen, [bot.token]);
  });
});
