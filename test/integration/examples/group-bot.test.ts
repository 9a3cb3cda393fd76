/**
 * Smoke run of examples/group-bot.ts against the reference server: a user
 * creates a group and an invite code, the bot (a child process through tsx,
 * tsconfig.examples.json mapping the package name to src/) joins with it,
 * the user speaks in the group and the bot answers mentioning them; SIGTERM
 * ends it cleanly.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { UserClient, type ReceivedMessage } from '../../../packages/sdk/src/index.js';
import { startReferenceServer, type ReferenceServer } from '../../../packages/dev/src/testing/index.js';

let server: ReferenceServer;
let user: UserClient;
let keyDir: string;
const received: ReceivedMessage[] = [];

beforeAll(async () => {
  server = await startReferenceServer({
    passwordHashing: { logN: 10, blockSize: 8, parallelization: 1 },
    agentTokenBcryptCost: 4,
  });
  keyDir = mkdtempSync(join(tmpdir(), 'ams-group-bot-'));
  user = new UserClient({
    baseUrl: server.url,
    keyBackup: { params: { m: 64, t: 1, p: 1 }, minParams: { m: 8, t: 1, p: 1 } },
  });
  const email = 'group-smoke@example.com';
  await user.sendCode({ email, scene: 'register', turnstileToken: 'pass' });
  await user.register({
    email,
    code: server.control.latestCode(email, 'register') ?? '',
    accountPassword: 'account-password-1',
    displayName: 'Smoke',
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
  rmSync(keyDir, { recursive: true, force: true });
});

function start(env: Record<string, string>): { child: ChildProcessWithoutNullStreams; out: () => string } {
  const { AMS_BASE_URL: _u, AMS_AGENT_ID: _a, AMS_AGENT_TOKEN: _t, AMS_KEY_DIR: _k, ...base } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/group-bot.ts'], {
    cwd: process.cwd(),
    env: { ...base, ...env, TSX_TSCONFIG_PATH: 'tsconfig.examples.json' },
  });
  let text = '';
  child.stdout.on('data', (d: Buffer) => (text += d.toString()));
  child.stderr.on('data', (d: Buffer) => (text += d.toString()));
  return { child, out: () => text };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

it('group-bot.ts joins by invite code and answers in the group, mentioning who spoke', async () => {
  const group = await user.groups.create({ name: 'Smoke group' });
  const { code } = await user.groups.invite(group.conversationId);
  const agent = await server.control.createAgent({ ownerId: user.session!.userId, name: 'group-bot' });
  const { child, out } = start({
    AMS_BASE_URL: server.url,
    AMS_AGENT_ID: agent.agentId,
    AMS_AGENT_TOKEN: agent.token,
    AMS_KEY_DIR: keyDir,
    AMS_GROUP_INVITE: code,
  });
  const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
  try {
    await until(() => /in 1 group\(s\)/.test(out()), 'the bot to join');
    await user.groups.admit(group.conversationId); // the owner signs the roster that admits the bot
    await user.send(group.conversationId, { type: 'text', text: 'hello bots' });
    await until(() => received.some((m) => m.senderId === agent.agentId), 'the answer');
    const answer = received.find((m) => m.senderId === agent.agentId)!;
    expect(answer.conversationId).toBe(group.conversationId);
    expect((answer.payload as { text?: string }).text).toBe(
      `@${user.session!.userId} heard you ("hello bots"); 1 member(s) besides me read this.`,
    );
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exit).toBe(0);
  expect(out()).not.toContain(agent.token);
}, 40_000);
