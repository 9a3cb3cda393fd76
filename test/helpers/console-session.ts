/**
 * Helpers of the dev console's browser tests: a bot for the page's user (in
 * this process, WebSocket or webhook mode), and a recorder of everything a
 * page session shows or sends (URLs, headers, bodies, WebSocket frames,
 * console lines) to check that no secret leaks.
 */
import { readFile } from 'node:fs/promises';
import { chromium, type Browser, type Download, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { Agent, createAgentApi, ensureAgentKeys } from '../../packages/sdk/src/agent/index.js';
import { MemoryKeyStore } from '../../packages/sdk/src/crypto/index.js';
import { startReferenceServer, type ReferenceServer } from '../../packages/dev/src/server/index.js';
import { CHROMIUM_PATH, ensureConsoleBuilt } from './console-browser.js';
import { startWebhookHost, worldClock } from '../../packages/dev/src/testing/test-world-parts.js';

/** A bot of the page's user. */
export interface ConsoleBot {
  readonly agent: Agent;
  readonly agentId: string;
  readonly token: string;
  /** The webhook's signing secret (webhook mode). */
  readonly webhookSecret?: string;
  close(): Promise<void>;
}

/** An SDK Agent on an agent's token, its keys registered (memory key store, the server's clock); not connected. */
export async function consoleAgent(
  server: ReferenceServer,
  account: { agentId: string; token: string },
  mode: 'websocket' | 'webhook',
  readReceipts = false,
): Promise<Agent> {
  const { agentId, token } = account;
  const keyStore = new MemoryKeyStore();
  const clock = worldClock(server);
  await ensureAgentKeys({
    api: createAgentApi({ baseUrl: server.url, agentId, token }),
    store: keyStore,
    clock,
  });
  return new Agent({ baseUrl: server.url, agentId, token, keyStore, clock, mode, readReceipts });
}

/** Starts a bot for `ownerId`; `setup` registers its handlers before it connects. */
export async function startConsoleBot(
  server: ReferenceServer,
  ownerId: string,
  o: {
    name: string;
    mode?: 'websocket' | 'webhook';
    setup: (agent: Agent) => void;
    /** The agent's `readReceipts` option. @defaultValue false */
    readReceipts?: boolean;
    /** An agent made elsewhere (e.g. by `ams dev bootstrap`); else one is created for `ownerId`. */
    existing?: { agentId: string; token: string };
  },
): Promise<ConsoleBot> {
  const mode = o.mode ?? 'websocket';
  const { agentId, token } = o.existing ?? (await server.control.createAgent({ ownerId, name: o.name }));
  const agent = await consoleAgent(server, { agentId, token }, mode, o.readReceipts);
  o.setup(agent);
  const hook = mode === 'webhook' ? await startWebhookHost() : undefined;
  let webhookSecret: string | undefined;
  if (hook !== undefined) {
    const { secret } = await server.control.setWebhook(agentId, { url: hook.url });
    webhookSecret = secret;
    agent.webhook({ secret });
    hook.use(agent.webhookHandler());
  } else {
    await agent.connect();
  }
  return {
    agent,
    agentId,
    token,
    ...(webhookSecret === undefined ? {} : { webhookSecret }),
    async close() {
      await agent.close({ timeoutMs: 2_000 });
      await hook?.close();
    },
  };
}

/** Everything a page session sent, received or logged. */
export interface SessionRecord {
  readonly urls: string[];
  readonly requestText: string[];
  readonly responseText: string[];
  readonly consoleLines: string[];
  /** The `data:` of every Server-Sent Event the page received (the console's live feed). */
  readonly eventSourceText: string[];
}

/** Records the page's traffic and console from now on. */
export function recordSession(page: Page): SessionRecord {
  const seen: SessionRecord = {
    urls: [],
    requestText: [],
    responseText: [],
    consoleLines: [],
    eventSourceText: [],
  };
  page.on('request', (r) => {
    seen.urls.push(r.url());
    seen.requestText.push(JSON.stringify(r.headers()), r.postData() ?? '');
  });
  page.on(
    'response',
    (r) =>
      void r.text().then(
        (t) => seen.responseText.push(t),
        () => undefined,
      ),
  );
  page.on('websocket', (ws) => {
    seen.urls.push(ws.url());
    ws.on('framesent', (f) => seen.requestText.push(String(f.payload)));
    ws.on('framereceived', (f) => seen.responseText.push(String(f.payload)));
  });
  page.on('console', (m) => seen.consoleLines.push(m.text()));
  return seen;
}

/**
 * Adds each Server-Sent Event's data to `seen.eventSourceText` (through the
 * DevTools protocol: a stream's response body never ends, so `response.text()`
 * does not see it).
 */
export async function recordEventSource(page: Page, seen: SessionRecord): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  cdp.on('Network.eventSourceMessageReceived', (m) => seen.eventSourceText.push(m.data));
}

/**
 * No agent token or private key anywhere in the session, and no access token
 * in a URL, a console line or the page's HTML (it travels in headers and the
 * WebSocket's first frame only).
 */
export async function expectNoSecrets(
  page: Page,
  seen: SessionRecord,
  agentTokens: readonly string[],
): Promise<void> {
  const stored = await page.evaluate(() => localStorage.getItem('ams-console-user'));
  const keys = JSON.parse(stored!) as { encryptionPrivate: string; signingPrivate: string };
  const html = await page.content();
  const everywhere = [
    ...seen.urls,
    ...seen.requestText,
    ...seen.responseText,
    ...seen.consoleLines,
    ...seen.eventSourceText,
    html,
  ].join('\n');
  for (const t of agentTokens) expect(everywhere).not.toContain(t);
  for (const key of [keys.encryptionPrivate, keys.signingPrivate]) expect(everywhere).not.toContain(key);
  const accessTokens = seen.responseText.flatMap((t) =>
    [...t.matchAll(/"access_token":"([^"]+)"/g)].map((m) => m[1]!),
  );
  expect(accessTokens.length).toBeGreaterThan(0);
  const visible = [...seen.urls, ...seen.consoleLines, html].join('\n');
  for (const t of accessTokens) expect(visible).not.toContain(t);
}

/** A dev server in virtual time, headless Chromium on Debian's binary, and a page recording its session. */
export interface ConsoleSession {
  readonly server: ReferenceServer;
  readonly browser: Browser;
  readonly page: Page;
  readonly seen: SessionRecord;
}

/** Starts what every console browser test needs (the page is not opened yet). */
export async function startConsoleSession(): Promise<ConsoleSession> {
  await ensureConsoleBuilt();
  const server = await startReferenceServer({
    dev: true,
    virtualTime: true,
    passwordHashing: { logN: 10 },
    agentTokenBcryptCost: 4,
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox'],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  page.setDefaultTimeout(8_000);
  const seen = recordSession(page);
  await recordEventSource(page, seen);
  return { server, browser, page, seen };
}

/** Reads `NAME=value` lines (values are plain or single-quoted). */
export function parseEnv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n').filter((l) => l !== '')) {
    const eq = line.indexOf('=');
    const raw = line.slice(eq + 1);
    out[line.slice(0, eq)] = raw.startsWith("'") ? raw.slice(1, -1).replaceAll(`'\\''`, "'") : raw;
  }
  return out;
}

export async function envOf(download: Download): Promise<{ name: string; env: Record<string, string> }> {
  return {
    name: download.suggestedFilename(),
    env: parseEnv(await readFile((await download.path())!, 'utf8')),
  };
}

/** Clicks `selector` and returns the env file the page downloads. */
export async function clickForEnv(page: Page, selector: string) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return envOf(download);
}

/** Opens the console and signs a new dev user in with one click; returns the user's id. */
export async function signInNewUser(page: Page, server: ReferenceServer): Promise<string> {
  await page.goto(`${server.url}/_console/`, { waitUntil: 'load' });
  await page.click('#new-user');
  await page.waitForSelector('#user[data-user-id]');
  return (await page.getAttribute('#user', 'data-user-id'))!;
}

/** Lists the user's agents again and opens the chat with `agentId` (the composer enabled). */
export async function openAgentChat(page: Page, agentId: string): Promise<void> {
  await page.click('#refresh-agents');
  await page.click(`#agents button[data-agent-id="${agentId}"]`);
  await page.waitForSelector('#text:not([disabled])');
}

/** Types `text` in the composer and sends it. */
export async function sendFromPage(page: Page, text: string): Promise<void> {
  await page.fill('#text', text);
  await page.press('#text', 'Enter');
}

/** Closes what a console test started: its bots (any may be missing), then Chromium and the server. */
export async function closeConsoleSession(
  session: { readonly browser?: Browser | undefined; readonly server?: ReferenceServer | undefined },
  bots: readonly (ConsoleBot | undefined)[] = [],
): Promise<void> {
  for (const b of bots) await b?.close();
  await session.browser?.close();
  await session.server?.close();
}
