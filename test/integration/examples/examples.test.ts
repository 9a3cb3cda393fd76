/**
 * Smoke run of every example in examples/: a reference server in dev mode,
 * env lines bootstrapped through its control API (as `ams dev bootstrap`
 * does), each example started as a child process (through tsx, with
 * tsconfig.examples.json mapping the package name to src/), a user who sends
 * a message and waits for the answer, then SIGTERM and a clean exit.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserClient, type FilePayload, type ReceivedMessage } from '../../../packages/sdk/src/index.js';
import type { StatusUpdate } from '../../../packages/sdk/src/client/user-status.js';
import type {
  StreamEnded,
  StreamFailure,
  StreamPartUpdate,
} from '../../../packages/sdk/src/client/streams/receiver.js';
import type { ReceivedArtifact } from '../../../packages/sdk/src/client/user-artifacts.js';
import { startReferenceServer, type ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { REDIS_URL, skipRedis } from '../../helpers/redis.js';

const EXAMPLE_TIMEOUT_MS = 20_000;
let server: ReferenceServer;
let user: UserClient;
let keyDir: string;
const received: ReceivedMessage[] = [];
const artifacts: ReceivedArtifact[] = [];

beforeAll(async () => {
  server = await startReferenceServer({
    passwordHashing: { logN: 10, blockSize: 8, parallelization: 1 },
    agentTokenBcryptCost: 4,
  });
  keyDir = mkdtempSync(join(tmpdir(), 'ams-examples-'));
  user = new UserClient({
    baseUrl: server.url,
    keyBackup: { params: { m: 64, t: 1, p: 1 }, minParams: { m: 8, t: 1, p: 1 } },
  });
  const email = 'smoke@example.com';
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
  user.on('artifact', (a) => void artifacts.push(a));
  await user.connect();
});

afterAll(async () => {
  await user.disconnect();
  await server.close();
  rmSync(keyDir, { recursive: true, force: true });
});

/** A free loopback port (the example listens on it; the server delivers to it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** What `ams dev bootstrap` prints, for a new agent of the user. */
async function bootstrap(webhook: boolean): Promise<{ agentId: string; env: Record<string, string> }> {
  const agent = await server.control.createAgent({ ownerId: user.session!.userId, name: 'smoke' });
  const env: Record<string, string> = {
    AMS_BASE_URL: server.url,
    AMS_AGENT_ID: agent.agentId,
    AMS_AGENT_TOKEN: agent.token,
    AMS_KEY_DIR: keyDir,
  };
  if (webhook) {
    const port = await freePort();
    const secret = randomBytes(32).toString('base64');
    await server.control.setWebhook(agent.agentId, { url: `http://127.0.0.1:${port}/webhook`, secret });
    Object.assign(env, { AMS_WEBHOOK_SECRET: secret, PORT: String(port) });
  }
  return { agentId: agent.agentId, env };
}

/** Starts `examples/<file>` through tsx with the package name mapped to src/. */
function startExample(file: string, env: Record<string, string>): ChildProcessWithoutNullStreams {
  const {
    AMS_BASE_URL: _u,
    AMS_AGENT_ID: _a,
    AMS_AGENT_TOKEN: _t,
    AMS_KEY_DIR: _k,
    PORT: _p,
    ...base
  } = process.env;
  return spawn(process.execPath, ['--import', 'tsx', `examples/${file}`], {
    cwd: process.cwd(),
    env: { ...base, ...env, TSX_TSCONFIG_PATH: 'tsconfig.examples.json' },
  });
}

/** Collects a child's output and resolves when `pattern` shows up on stdout. */
function output(child: ChildProcessWithoutNullStreams): {
  text: () => string;
  until: (pattern: RegExp) => Promise<void>;
  exit: Promise<number | null>;
} {
  let stdout = '';
  let stderr = '';
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    for (const w of waiters) if (w.pattern.test(stdout)) w.resolve();
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
  const until = (pattern: RegExp): Promise<void> =>
    new Promise((resolve, reject) => {
      if (pattern.test(stdout)) return resolve();
      waiters.push({ pattern, resolve });
      void exit.then((code) => reject(new Error(`example exited (${code}) before ${pattern}: ${stderr}`)));
    });
  return { text: () => `${stdout}\n${stderr}`, until, exit };
}

/** Resolves with the first message from `agentId` whose text matches `pattern`. */
async function replyFrom(agentId: string, pattern: RegExp): Promise<string> {
  const deadline = Date.now() + EXAMPLE_TIMEOUT_MS;
  for (;;) {
    const hit = received.find((m) => m.senderId === agentId && pattern.test(textOf(m)));
    if (hit !== undefined) return textOf(hit);
    if (Date.now() > deadline) throw new Error(`no reply from ${agentId} matching ${pattern}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Resolves with the first artifact from `agentId` the user received. */
async function waitForArtifact(agentId: string): Promise<ReceivedArtifact> {
  const deadline = Date.now() + EXAMPLE_TIMEOUT_MS;
  for (;;) {
    const hit = artifacts.find((a) => a.senderId === agentId);
    if (hit !== undefined) return hit;
    if (Date.now() > deadline) throw new Error(`no artifact from ${agentId}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const textOf = (m: ReceivedMessage): string => {
  const text = (m.payload as { text?: unknown }).text;
  return typeof text === 'string' ? text : '';
};

const ECHO_EXAMPLES = [
  { file: 'echo-bot.ts', webhook: false },
  { file: 'webhook-express.ts', webhook: true },
  { file: 'webhook-fastify.ts', webhook: true },
  { file: 'webhook-hono.ts', webhook: true },
  { file: 'webhook-node-http.ts', webhook: true },
] as const;

describe('examples, run against the reference server', () => {
  for (const { file, webhook } of ECHO_EXAMPLES) {
    it(`${file} echoes a message, then stops cleanly on SIGTERM`, async () => {
      const { agentId, env } = await bootstrap(webhook);
      const child = startExample(file, env);
      const out = output(child);
      try {
        await out.until(/(connected as|listening on)/);
        const { conversationId } = await user.addAgent(agentId);
        await user.send(conversationId, { type: 'text', text: `ping ${file}` });
        expect(await replyFrom(agentId, /^echo: /)).toBe(`echo: ping ${file}`);
      } finally {
        child.kill('SIGTERM');
      }
      expect(await out.exit).toBe(0);
      expect(out.text()).not.toContain(env['AMS_AGENT_TOKEN']!);
    }, 30_000);
  }

  it('file-bot.ts answers a file with its SHA-256 and an upper-cased copy', async () => {
    const { agentId, env } = await bootstrap(false);
    const child = startExample('file-bot.ts', env);
    const out = output(child);
    try {
      await out.until(/connected as/);
      const { conversationId } = await user.addAgent(agentId);
      const text = 'hello, file bot\n'.repeat(10_000);
      await user.files.upload(conversationId, new TextEncoder().encode(text), {
        name: 'hello.txt',
        contentType: 'text/plain',
      });
      const sha = createHash('sha256').update(text).digest('hex');
      expect(await replyFrom(agentId, /^sha256 /)).toBe(`sha256 ${sha} (${text.length} bytes, hello.txt)`);
      const fileMessage = received.find((m) => m.senderId === agentId && m.payload.type === 'file');
      const copy = await (await user.files.download(fileMessage!.payload as FilePayload)).toBytes();
      expect(new TextDecoder().decode(copy)).toBe(text.toUpperCase());
    } finally {
      child.kill('SIGTERM');
    }
    expect(await out.exit).toBe(0);
  }, 30_000);

  it('relations-bot.ts greets on relation.established, answers, sends an artifact and reports its answer', async () => {
    const { agentId, env } = await bootstrap(false);
    const child = startExample('relations-bot.ts', env);
    const out = output(child);
    try {
      await out.until(/connected as/);
      const { conversationId } = await user.addAgent(agentId);
      await out.until(/relation\.established: user /);
      expect(await replyFrom(agentId, /^Hello!/)).toContain('artifacts');
      await user.send(conversationId, { type: 'text', text: 'status?' });
      expect(await replyFrom(agentId, /^I track/)).toBe('I track 1 relation(s). You said: status?');
      const artifact = await waitForArtifact(agentId);
      expect(artifact.content).toEqual({ kind: 'confirm', title: 'Shall I send you a daily summary?' });
      expect((await artifact.deny('user_rejected')).accepted).toBe(true);
      await out.until(/artifact \S+: denied \(user_rejected, by user\)/);
      await out.until(/artifact_response: denied \(user_rejected\) in \S+\n/);
      expect(out.text()).toContain(`artifact_response: denied (user_rejected) in ${conversationId}\n`);
      expect(await replyFrom(agentId, /^Artifact /)).toBe('Artifact denied (user_rejected).');
      await user.revokeConversation(conversationId);
      await out.until(/relation\.revoked: user .*; 0 relation\(s\) left/);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await out.exit).toBe(0);
  }, 30_000);

  it('manifest-bot.ts publishes its manifest on start, hears the decision, reads a granted profile', async () => {
    const { agentId, env } = await bootstrap(false);
    const child = startExample('manifest-bot.ts', env);
    const out = output(child);
    try {
      await out.until(/manifest version 1 proposed/);
      const state = await user.manifests.get(agentId);
      expect(state.pending?.manifest.name).toBe('Manifest bot');
      await user.manifests.accept(agentId, 1);
      await out.until(/the owner accepted manifest version 1/);
      const { conversationId } = await user.addAgent(agentId);
      await user.send(conversationId, { type: 'text', text: '/profile' });
      await replyFrom(agentId, /^I asked to read your profile/);
      const [asked] = await user.grants.list({ status: 'pending' });
      expect(asked).toMatchObject({ agentId, scope: 'profile.read' });
      await user.grants.grant(asked!.grantId);
      expect(await replyFrom(agentId, /^Hello, /)).toBe('Hello, Smoke!');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await out.exit).toBe(0);
    expect(out.text()).not.toContain(env['AMS_AGENT_TOKEN']!);
  }, 30_000);

  it('a missing variable ends an example with one line naming it', async () => {
    const child = startExample('webhook-express.ts', { AMS_BASE_URL: server.url });
    const out = output(child);
    expect(await out.exit).toBe(1);
    expect(out.text().trim()).toBe("missing environment variable AMS_AGENT_ID (see 'ams dev bootstrap')");
  });
  it('otel-bot.ts (docs/observability.md) prints the spans of a delivery, flushes its metrics on SIGTERM', async () => {
    const { agentId, env } = await bootstrap(false);
    const child = startExample('otel-bot.ts', env);
    const out = output(child);
    try {
      await out.until(/connected as/);
      const { conversationId } = await user.addAgent(agentId);
      await user.send(conversationId, { type: 'text', text: 'ping otel-4410-marker' });
      expect(await replyFrom(agentId, /^echo: ping otel/)).toBe('echo: ping otel-4410-marker');
      await out.until(/name: 'ack message\.new'[\s\S]*name: 'receive message\.new'/);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await out.exit).toBe(0);
    const text = out.text();
    expect(text).toMatch(/name: 'send'/);
    expect(text).toContain('ams.deliveries');
    expect(text).toContain('otel-bot: telemetry flushed');
    expect(text).not.toContain('otel-4410-marker');
    expect(text).not.toContain(env['AMS_AGENT_TOKEN']!);
  }, 30_000);
  it('streaming-bot.ts streams a reply from a fake token source; the user verifies it', async () => {
    const { agentId, env } = await bootstrap(false);
    const child = startExample('streaming-bot.ts', env);
    const out = output(child);
    const ended = new Promise<string>((resolve) =>
      user.on('streamEnd', (e) => {
        if (e.senderId === agentId) resolve(e.text);
      }),
    );
    try {
      await out.until(/connected as/);
      const { conversationId } = await user.addAgent(agentId);
      await user.send(conversationId, { type: 'text', text: 'why is the sky blue?' });
      expect(await ended).toBe(
        'You asked: "why is the sky blue?". Here is a streamed answer, one token at a time.',
      );
      await out.until(/streamed \d+ characters in \d+ deltas/);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await out.exit).toBe(0);
  }, 30_000);
  it('chat-sdk-bot.ts: a Chat SDK bot answers, and its card is answered through an artifact (docs/chat-sdk.md)', async () => {
    const { agentId, env } = await bootstrap(false);
    const child = startExample('chat-sdk-bot.ts', env);
    const out = output(child);
    try {
      await out.until(/connected as/);
      const { conversationId } = await user.addAgent(agentId);
      await user.send(conversationId, { type: 'text', text: 'hello chat sdk' });
      expect(await replyFrom(agentId, /^echo: /)).toBe('echo: hello chat sdk');
      await user.send(conversationId, { type: 'text', text: 'deploy' });
      const card = await waitForArtifact(agentId);
      expect(card.content).toMatchObject({ kind: 'form', title: 'Deploy 1.4.2?' });
      await card.approve({ action: 'Deploy' });
      expect(await replyFrom(agentId, /^deploying /)).toBe('deploying 1.4.2');
      await out.until(/action deploy/);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await out.exit).toBe(0);
    expect(out.text()).not.toContain(env['AMS_AGENT_TOKEN']!);
  }, 30_000);
  it.skipIf(skipRedis)(
    'copies-bot.ts: two copies side by side (docs/production.md), each message answered once, both drain on SIGTERM',
    async () => {
      const { agentId, env } = await bootstrap(false);
      const copyEnv = { ...env, REDIS_URL: REDIS_URL ?? '' };
      // The first copy makes and registers the keys; the second loads them from the same directory.
      const first = startExample('copies-bot.ts', copyEnv);
      const firstOut = output(first);
      let second: ChildProcessWithoutNullStreams | undefined;
      let secondOut: ReturnType<typeof output> | undefined;
      try {
        await firstOut.until(/connected as/);
        second = startExample('copies-bot.ts', copyEnv);
        secondOut = output(second);
        await secondOut.until(/connected as/);
        const { conversationId } = await user.addAgent(agentId);
        const texts = Array.from({ length: 5 }, (_, i) => `copies ${i}`);
        for (const text of texts) await user.send(conversationId, { type: 'text', text });
        for (const text of texts)
          expect(await replyFrom(agentId, new RegExp(`^echo: ${text}$`))).toBe(`echo: ${text}`);
        // Answered once each: the user got exactly one echo per message, and neither copy replaced the other.
        await expect
          .poll(async () => (await server.control.agent(agentId))?.pending_count, {
            timeout: EXAMPLE_TIMEOUT_MS,
          })
          .toBe(0);
        const echoes = received.filter((m) => m.senderId === agentId).map(textOf);
        expect(echoes.sort()).toEqual(texts.map((t) => `echo: ${t}`).sort());
        expect(first.exitCode).toBeNull();
        expect(second.exitCode).toBeNull();
      } finally {
        first.kill('SIGTERM');
        second?.kill('SIGTERM');
      }
      expect(await firstOut.exit).toBe(0);
      expect(await secondOut!.exit).toBe(0);
      expect(firstOut.text() + secondOut!.text()).not.toContain(env['AMS_AGENT_TOKEN']!);
    },
    40_000,
  );

  it('ai-sdk-agent.ts (docs/ai-sdk.md) streams a mock model through the AI SDK, the tool approved by the user', async () => {
    const { agentId, env } = await bootstrap(false);
    const child = startExample('ai-sdk-agent.ts', env);
    const out = output(child);
    try {
      await out.until(/connected as/);
      const { conversationId } = await user.addAgent(agentId);
      const ended = new Promise<StreamEnded>((resolve) => {
        const listener = (e: StreamEnded): void => {
          if (e.senderId !== agentId) return;
          user.off('streamEnd', listener);
          resolve(e);
        };
        user.on('streamEnd', listener);
      });
      await user.send(conversationId, { type: 'text', text: 'what is the weather in Oslo?' });
      const artifact = await waitForArtifact(agentId);
      expect(artifact.content).toEqual({ kind: 'confirm', title: 'Run weather?', body: '{"city":"Oslo"}' });
      expect((await artifact.approve()).accepted).toBe(true);
      const end = await ended;
      expect(end.text).toBe('Let me check the weather in Oslo. It is -3 °C there.');
      expect(end.parts.map((p) => p.type)).toEqual(['step', 'reasoning', 'text', 'tool', 'step', 'text']);
      await out.until(/answered in \S+: Let me check the weather in Oslo\. It is -3 °C there\./);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await out.exit).toBe(0);
    expect(out.text()).not.toContain(env['AMS_AGENT_TOKEN']!);
  }, 30_000);

  describe('llm-agent.ts (docs/llm-agents.md)', () => {
    let agentId: string;
    let env: Record<string, string>;
    let conversationId: string;
    let child: ChildProcessWithoutNullStreams;
    let out: ReturnType<typeof output>;
    const statuses: StatusUpdate[] = [];
    const parts: StreamPartUpdate[] = [];
    /** Resolves with the next event `name` from the agent that satisfies `accept`. */
    const next = <T extends { senderId?: string | undefined }>(
      name: 'streamEnd' | 'streamError' | 'streamDelta',
      accept: (e: T) => boolean = () => true,
    ): Promise<T> =>
      new Promise<T>((resolve) => {
        const listener = (e: T): void => {
          if (e.senderId !== agentId || !accept(e)) return;
          user.off(name, listener as never);
          resolve(e);
        };
        user.on(name, listener as never);
      });

    beforeAll(async () => {
      ({ agentId, env } = await bootstrap(false));
      user.on('status', (s) => void (s.senderId === agentId && statuses.push(s)));
      user.on('streamPart', (p) => void (p.senderId === agentId && parts.push(p)));
      child = startExample('llm-agent.ts', env);
      out = output(child);
      await out.until(/connected as/);
      ({ conversationId } = await user.addAgent(agentId));
    });

    it('shows a status, asks before the tool, streams the plan, the tool call and result, then the answer', async () => {
      const ended = next<StreamEnded>('streamEnd');
      await user.send(conversationId, { type: 'text', text: 'what is the weather in Oslo?' });
      const artifact = await waitForArtifact(agentId);
      expect(artifact.content).toEqual({ kind: 'confirm', title: 'Run weather?', body: '{"city":"Oslo"}' });
      expect((await artifact.approve()).accepted).toBe(true);
      const end = await ended;
      expect(end.text).toBe('Let me check the weather in Oslo. It is -3 °C in Oslo.');
      expect(end.parts).toEqual([
        { type: 'step', id: 'plan', title: 'Answer, using tools when needed', status: 'done' },
        { type: 'text', text: 'Let me check the weather in Oslo. ' },
        {
          type: 'tool',
          callId: 'call-1',
          name: 'weather',
          input: { city: 'Oslo' },
          state: 'output-available',
          output: { city: 'Oslo', tempC: -3 },
        },
        { type: 'step', id: 'call-1', title: 'Run weather (needs your approval)', status: 'done' },
        { type: 'text', text: 'It is -3 °C in Oslo.' },
      ]);
      // The tool's step went pending → running → done as the human approved it.
      const toolStep = parts.flatMap((p) =>
        p.part.type === 'step' && p.part.id === 'call-1' ? [p.part.status] : [],
      );
      expect(toolStep).toEqual(['pending', 'running', 'done']);
      expect(statuses.find((s) => s.state === 'working')?.text).toBe('thinking…');
      await out.until(/answered in \S+: Let me check the weather in Oslo\. It is -3 °C in Oslo\./);
    }, 30_000);

    it('the human stops a turn mid-stream: the fake model sees the abort, the stream ends "stopped"', async () => {
      const failed = next<StreamFailure>('streamError');
      const stopped = new Promise<number>((resolve) => user.once('turnStopped', (e) => resolve(e.turns)));
      const counting = next<{ senderId: string; text: string }>('streamDelta', (d) =>
        d.text.includes(': 1 '),
      );
      await user.send(conversationId, { type: 'text', text: 'count to infinity' });
      // The history holds the first turn: its question, the two parts of the answer and the tool result.
      expect((await counting).text).toMatch(/^Counting \(4 earlier entries in this conversation\): /);
      await user.stopTurn(conversationId);
      expect(await stopped).toBe(1);
      expect(await failed).toMatchObject({ reason: 'aborted', detail: 'stopped' });
      await out.until(/model: cancelled after \d+ tokens \(The turn was stopped by a human\.\)/);
      await out.until(/stopped 1 turn\(s\)/);
    }, 30_000);

    afterAll(async () => {
      child.kill('SIGTERM');
      expect(await out.exit).toBe(0);
      expect(out.text()).not.toContain(env['AMS_AGENT_TOKEN']!);
    });
  });
});
