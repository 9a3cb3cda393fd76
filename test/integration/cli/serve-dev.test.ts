import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { devHint, runServe } from '../../../packages/dev/src/cli/commands/serve.js';
import { runCli } from '../../../packages/dev/src/cli/run.js';
import { captureIo } from '../../unit/cli/helpers.js';
import { newAgent } from '../../helpers/agent-world.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';

describe('ams serve --dev', () => {
  it('says how to bootstrap a user and an agent, one line, terminal or not (issue #28), and the line works', async () => {
    const io = captureIo({ tty: false });
    let stop!: () => void;
    const exit = runServe(['--dev', '--port', '0'], io, () => new Promise<void>((r) => (stop = r)));
    while (!io.out.includes('\n')) await new Promise((r) => setTimeout(r, 5));
    const url = /listening on (\S+)/.exec(io.out)![1]!;
    expect(io.out.split('\n')).toHaveLength(2); // still exactly one line on stdout
    expect(io.err).toBe(devHint(url, `${url}/_console/`));
    expect(io.err).toContain(`dev console at ${url}/_console/`);
    expect(io.err.split('\n').filter((l) => l !== '')).toHaveLength(2);
    const line = /npx ams (dev bootstrap --base-url \S+) >> \.env/.exec(io.err)![1]!;
    const boot = captureIo();
    expect(await runCli(line.split(' '), boot)).toBe(0);
    expect(boot.out).toContain(`AMS_BASE_URL=${url}\n`);
    stop();
    expect(await exit).toBe(0);
  });

  it('prints no hint without --dev, or with --quiet', async () => {
    for (const [argv, tty] of [
      [['--port', '0'], true],
      [['--dev', '--port', '0', '--quiet'], true],
    ] as const) {
      const io = captureIo({ tty });
      let stop!: () => void;
      const exit = runServe(argv, io, () => new Promise<void>((r) => (stop = r)));
      while (!io.out.includes('\n')) await new Promise((r) => setTimeout(r, 5));
      stop();
      expect(await exit).toBe(0);
      expect(io.err).toBe('');
    }
  });

  it('logs one line per request and delivery step (never tokens, passwords or text); --quiet stops it', async () => {
    for (const quiet of [false, true]) {
      const io = captureIo();
      let stop!: () => void;
      const argv = ['--dev', '--port', '0', ...(quiet ? ['--quiet'] : [])];
      const exit = runServe(argv, io, () => new Promise<void>((r) => (stop = r)));
      while (!io.out.includes('\n')) await new Promise((r) => setTimeout(r, 5));
      const url = /listening on (\S+)/.exec(io.out)![1]!;
      const keyDir = await mkdtemp(join(tmpdir(), 'ams-serve-'));
      const boot = captureIo();
      expect(await runCli(['dev', 'bootstrap', '--base-url', url, '--key-dir', keyDir, '--json'], boot)).toBe(
        0,
      );
      const env = JSON.parse(boot.out) as Record<string, string>;
      const agent = newAgent({ url } as ReferenceServer, {
        agentId: env['AMS_AGENT_ID']!,
        token: env['AMS_AGENT_TOKEN']!,
      });
      agent.on('message.new', async (m) => void (await m.reply(`echo: ${m.text ?? ''}`)));
      await agent.connect();
      const send = captureIo({ env });
      expect(await runCli(['dev', 'send', 'secret words'], send), send.err).toBe(0);
      await agent.close();
      stop();
      expect(await exit).toBe(0);
      if (quiet) {
        expect(io.err).toBe('');
        continue;
      }
      const agentId = env['AMS_AGENT_ID']!;
      const lines = io.err.trimEnd().split('\n');
      expect(lines.every((l) => l.startsWith('ams serve: '))).toBe(true);
      expect(lines).toContainEqual(expect.stringMatching(/^ams serve: POST \/_control\/users 201 \d+ms$/));
      expect(lines).toContainEqual(expect.stringMatching(/^ams serve: POST \/auth\/login 200 \d+ms$/));
      expect(lines).toContainEqual(
        expect.stringMatching(
          new RegExp(`^ams serve: POST /agents/${agentId}/messages 201 agent=${agentId} \\d+ms$`),
        ),
      );
      expect(lines).toContainEqual(
        expect.stringMatching(
          new RegExp(`^ams serve: delivery\\.delivered agent=${agentId} delivery=\\S+ attempt=1$`),
        ),
      );
      for (const secret of [env['AMS_AGENT_TOKEN']!, env['AMS_OWNER_PASSWORD']!, 'secret words', 'Bearer']) {
        expect(io.err).not.toContain(secret);
      }
    }
  }, 30_000);
});
