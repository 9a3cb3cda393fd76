/**
 * The README's bot, copied from README.md as `.ci/newcomer.sh` copies it (the
 * first ```ts block after "## A bot in"), run as a child process against the
 * reference server (issue #28): it prints one line when connected and
 * listening, answers `/start` once (a handled command ends the chain), echoes
 * the rest, and when it cannot start it says why in one line and exits 1.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserClient, type ReceivedMessage } from '../../../packages/sdk/src/index.js';
import { startReferenceServer, type ReferenceServer } from '../../../packages/dev/src/testing/index.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const SDK = join(ROOT, 'packages', 'sdk', 'src', 'index.ts');

/** The first ```ts block after the first line that starts with `heading` (the awk rule of the script). */
function blockAfter(text: string, heading: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith(heading));
  const open = lines.findIndex((l, i) => i > start && l === '```ts');
  const close = lines.findIndex((l, i) => i > open && l === '```');
  return lines.slice(open + 1, close).join('\n');
}

let server: ReferenceServer;
let user: UserClient;
let dir: string;
let bot: string;
const received: ReceivedMessage[] = [];

beforeAll(async () => {
  server = await startReferenceServer({
    passwordHashing: { logN: 10, blockSize: 8, parallelization: 1 },
    agentTokenBcryptCost: 4,
  });
  dir = mkdtempSync(join(tmpdir(), 'ams-readme-bot-'));
  const code = blockAfter(readFileSync(join(ROOT, 'README.md'), 'utf8'), '## A bot in');
  expect(code).toContain("from 'agent-messaging-sdk'");
  bot = join(dir, 'bot.mts');
  writeFileSync(bot, code.replace("from 'agent-messaging-sdk'", `from ${JSON.stringify(SDK)}`));
  user = new UserClient({
    baseUrl: server.url,
    keyBackup: { params: { m: 64, t: 1, p: 1 }, minParams: { m: 8, t: 1, p: 1 } },
  });
  const email = 'readme@example.com';
  await user.sendCode({ email, scene: 'register', turnstileToken: 'pass' });
  await user.register({
    email,
    code: server.control.latestCode(email, 'register') ?? '',
    accountPassword: 'account-password-1',
    displayName: 'Readme',
    deviceLocale: 'en-GB',
    turnstileToken: 'pass',
    protectionPassword: 'protection-password-1',
  });
  user.on('message', (m) => void received.push(m));
  await user.connect();
});

afterAll(async () => {
  await user.disconnect();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the README bot with `env`; `lines` resolves on each stdout line. */
function run(env: Record<string, string>) {
  const { AMS_BASE_URL: _u, AMS_AGENT_ID: _a, AMS_AGENT_TOKEN: _t, AMS_KEY_DIR: _k, ...base } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', bot], {
    cwd: ROOT,
    env: { ...base, AMS_KEY_DIR: join(dir, 'keys'), ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
  const firstLine = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      if (stdout.includes('\n')) resolve(stdout.slice(0, stdout.indexOf('\n')));
    });
    void exit.then((code) => reject(new Error(`the bot exited (${code}): ${stderr}`)));
  });
  firstLine.catch(() => undefined); // awaited only by the test that expects it
  return { child, exit, firstLine, stdout: () => stdout, stderr: () => stderr };
}

const textOf = (m: ReceivedMessage): string => (m.payload as { text?: string }).text ?? '';

/** Resolves once the agent sent a message with text `text`. */
async function replied(agentId: string, text: string): Promise<void> {
  while (!received.some((m) => m.senderId === agentId && textOf(m) === text)) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the README bot', () => {
  it('prints one line when listening, answers /start once and echoes the rest', async () => {
    const agent = await server.control.createAgent({ ownerId: user.session!.userId, name: 'readme' });
    const bot = run({ AMS_BASE_URL: server.url, AMS_AGENT_ID: agent.agentId, AMS_AGENT_TOKEN: agent.token });
    try {
      expect(await bot.firstLine).toMatch(new RegExp(`^agent ${agent.agentId} connected, listening`));
      const { conversationId } = await user.addAgent(agent.agentId);
      await user.send(conversationId, { type: 'text', text: '/start' });
      await user.send(conversationId, { type: 'text', text: 'hello' });
      // One conversation is handled in order: once the echo of `hello` is here, any answer to /start is too.
      await replied(agent.agentId, 'echo: hello');
      const texts = received.filter((m) => m.senderId === agent.agentId).map(textOf);
      expect(texts).toEqual(['Hi! Send me anything.', 'echo: hello']);
    } finally {
      bot.child.kill('SIGTERM');
    }
    expect(await bot.exit).toBe(0);
    expect(bot.stdout().trim().split('\n')).toHaveLength(1);
    expect(bot.stderr()).not.toMatch(/error|Hi!/);
  }, 30_000);

  it('cannot start: one line that says why, and exit 1 (three bots at once)', async () => {
    const agent = await server.control.createAgent({ ownerId: user.session!.userId, name: 'gone' });
    const gone = await startReferenceServer();
    const goneUrl = gone.url;
    await gone.close();
    const badToken = `hsk_${'x'.repeat(40)}`;
    // A restarted dev server: it does not know the agent or its token any more.
    const unknown = run({ AMS_BASE_URL: server.url, AMS_AGENT_ID: agent.agentId, AMS_AGENT_TOKEN: badToken });
    const unreachable = run({
      AMS_BASE_URL: goneUrl,
      AMS_AGENT_ID: agent.agentId,
      AMS_AGENT_TOKEN: badToken,
    });
    const empty = run({ AMS_BASE_URL: '', AMS_AGENT_ID: agent.agentId, AMS_AGENT_TOKEN: badToken });
    expect(await Promise.all([unknown.exit, unreachable.exit, empty.exit])).toEqual([1, 1, 1]);
    const oneLine = (bot: ReturnType<typeof run>): string => {
      const lines = bot.stderr().trim().split('\n');
      expect(lines, bot.stderr()).toHaveLength(1);
      expect(bot.stdout()).toBe('');
      return lines[0]!;
    };
    const said = oneLine(unknown);
    expect(said).toContain('the service does not know this agent or its token');
    expect(said).toContain('run `ams dev bootstrap` again');
    expect(oneLine(unreachable)).toContain(`the agent could not connect: GET ${goneUrl}/agents/`);
    // The constructor throws (a stack follows), but the message says what is wrong.
    expect(empty.stderr()).toContain('Option "baseUrl" is empty: is AMS_BASE_URL set?');
    expect(empty.stderr()).not.toContain('absolute http(s) URL');
  }, 30_000);
});
