/**
 * The dev console renders a streamed reply's typed parts (#26) in Debian's
 * Chromium, from the person's point of view: a plan step shown running,
 * then updated in place to done; a tool call with its input, then its
 * output; a failed tool; a source as a link (and a `javascript:` URL never
 * as one); and the text, in the order the agent wrote them.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../../packages/sdk/src/agent/index.js';
import type { ReferenceServer } from '../../../packages/dev/src/server/index.js';
import { SKIP_BROWSER } from '../../helpers/console-browser.js';
import {
  closeConsoleSession,
  startConsoleBot,
  type ConsoleBot,
  startConsoleSession,
  signInNewUser,
  openAgentChat,
  sendFromPage,
} from '../../helpers/console-session.js';

/** A bot answering `plan` with a stream of steps, tool calls, sources and text. */
function planBot(gate: Promise<void>) {
  return (agent: Agent) => {
    agent.on('message.new', async (msg) => {
      if (msg.text !== 'plan') return;
      const w = await agent.stream(msg.conversationId, { coalesceMs: 0 });
      await w.step({ id: 'look', title: 'Look up the weather', status: 'running' });
      await w.toolCall({ callId: 'c1', name: 'weather', input: { city: 'Oslo' } });
      await gate;
      await w.toolResult({ callId: 'c1', output: { tempC: -3 } });
      await w.toolCall({ callId: 'c2', name: 'radar' });
      await w.toolResult({ callId: 'c2', error: 'radar offline' });
      await w.step({ id: 'look', status: 'done' });
      await w.source({ id: 's1', url: 'https://met.example/oslo', title: 'Met forecast' });
      await w.source({ id: 's2', url: 'javascript:alert(1)', title: 'Not a link' });
      await w.end('It is -3 °C in Oslo.');
    });
  };
}

describe.skipIf(SKIP_BROWSER)('dev console in Chromium: typed stream parts', () => {
  let server: ReferenceServer;
  let browser: Browser;
  let page: Page;
  let bot: ConsoleBot;
  let release = () => undefined as void;
  const gate = new Promise<void>((resolve) => (release = resolve));

  beforeAll(async () => {
    ({ server, browser, page } = await startConsoleSession());
    const userId = await signInNewUser(page, server);
    bot = await startConsoleBot(server, userId, { name: 'Plan bot', setup: planBot(gate) });
    await openAgentChat(page, bot.agentId);
  }, 30_000);

  afterAll(() => closeConsoleSession({ browser, server }, [bot]));

  it('shows a step running, then done in place, tool calls with their results, sources and the text', async () => {
    await sendFromPage(page, 'plan');
    const bubble = page.locator('#messages li.stream');
    // While the bot waits: the step is running, the tool call shows its input and no output yet.
    await page.waitForSelector(
      '#messages li.stream[data-state="streaming"] .part-step[data-step-id="look"][data-status="running"]',
    );
    await page.waitForSelector(
      '#messages li.stream .part-tool[data-call-id="c1"][data-state="input-available"]',
    );
    expect(await bubble.locator('.part-tool .tool-input').textContent()).toBe('({"city":"Oslo"})');
    release();
    await page.waitForSelector('#messages li.stream[data-state="ended"]');
    // One step, updated in place.
    expect(await bubble.locator('.part-step').count()).toBe(1);
    expect(await bubble.locator('.part-step').getAttribute('data-status')).toBe('done');
    expect(await bubble.locator('.part-step .step-title').textContent()).toBe(' Look up the weather');
    const c1 = bubble.locator('.part-tool[data-call-id="c1"]');
    expect(await c1.getAttribute('data-state')).toBe('output-available');
    expect(await c1.locator('.tool-output').textContent()).toBe(' → {"tempC":-3}');
    const c2 = bubble.locator('.part-tool[data-call-id="c2"]');
    expect(await c2.getAttribute('data-state')).toBe('output-error');
    expect(await c2.locator('.tool-error').textContent()).toBe(' ✗ radar offline');
    const link = bubble.locator('.part-source[data-source-id="s1"] a');
    expect(await link.getAttribute('href')).toBe('https://met.example/oslo');
    expect(await link.textContent()).toBe('Met forecast');
    expect(await bubble.locator('.part-source[data-source-id="s2"] a').count()).toBe(0);
    expect(await bubble.locator('.part-source[data-source-id="s2"]').textContent()).toBe('[Not a link]');
    expect(await bubble.locator('.part-text').textContent()).toBe('It is -3 °C in Oslo.');
    // In the order written: step, tools, sources, text.
    const order = await bubble.evaluate((li) => Array.from(li.children, (c) => c.className.split(' ')[0]));
    expect(order).toEqual(['part-step', 'part-tool', 'part-tool', 'part-source', 'part-source', 'part-text']);
  });
});
