/**
 * `ams serve --dev --data <dir>` (issue #28): a restarted dev server still
 * knows its users, agents, tokens and keys, so a bot and `ams dev send` go on
 * working without a new `ams dev bootstrap`; what it writes holds hashes, not
 * tokens or passwords, in files of mode 0600.
 */
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServe } from '../../../packages/dev/src/cli/commands/serve.js';
import { runCli } from '../../../packages/dev/src/cli/run.js';
import { captureIo } from '../../unit/cli/helpers.js';
import { newAgent } from '../../helpers/agent-world.js';
import { MemoryKeyStore } from '../../../packages/sdk/src/crypto/index.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ams-serve-data-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Runs `ams serve` with `argv` until `stop()`; resolves once it listens. */
async function serve(
  argv: string[],
): Promise<{ url: string; err: () => string; stop: () => Promise<number> }> {
  const io = captureIo({ workDir: dir });
  let stop!: () => void;
  const exit = runServe(argv, io, () => new Promise<void>((r) => (stop = r)));
  while (!io.out.includes('\n')) await new Promise((r) => setTimeout(r, 5));
  const url = /listening on (\S+)/.exec(io.out)![1]!;
  return {
    url,
    err: () => io.err,
    stop: () => {
      stop();
      return exit;
    },
  };
}

describe('ams serve --dev --data', () => {
  it('keeps users, agents, tokens and keys across a restart; only hashes at rest, mode 0600', async () => {
    const first = await serve(['--dev', '--port', '0', '--data', '.ams']);
    expect(first.err()).toContain(`users, agents and keys are kept in ${join(dir, '.ams')}`);
    const keyDir = join(dir, 'keys');
    const boot = captureIo({ workDir: dir });
    expect(
      await runCli(['dev', 'bootstrap', '--base-url', first.url, '--key-dir', keyDir, '--json'], boot),
    ).toBe(0);
    const env = JSON.parse(boot.out) as Record<string, string>;
    const server = (url: string) => ({ url }) as ReferenceServer;
    const keyStore = new MemoryKeyStore(); // the bot's keys, as its key directory keeps them
    const keyEvents: string[] = [];
    const echo = async (url: string) => {
      const agent = newAgent(
        server(url),
        { agentId: env['AMS_AGENT_ID']!, token: env['AMS_AGENT_TOKEN']! },
        { keyStore },
      );
      agent.on('keys', (e) => void keyEvents.push(e.type));
      agent.on('message.new', (msg) => msg.reply(`echo: ${msg.text ?? ''}`).then(() => undefined));
      await agent.connect();
      return agent;
    };
    let agent = await echo(first.url);
    const send = async (text: string) => {
      const io = captureIo({ env, workDir: dir });
      expect(await runCli(['dev', 'send', text], io), io.err).toBe(0);
      return io.out;
    };
    expect(await send('before')).toBe('echo: before\n');
    await agent.close();
    expect(await first.stop()).toBe(0);

    // The same port, as `ams serve --dev --port 8080 --data .ams` in the README.
    const port = new URL(first.url).port;
    const second = await serve(['--dev', '--port', port, '--data', '.ams']);
    expect(second.url).toBe(first.url);
    try {
      agent = await echo(second.url); // same token, same keys: no AGENT_TOKEN_INVALID, no AGENT_KEYS_MISMATCH
      expect(await send('after a restart')).toBe('echo: after a restart\n');
      // Registered once, before the restart; the restarted server still had them (no heal, no rotation).
      expect(keyEvents).toEqual(['keys.created', 'keys.registered']);
      await agent.close();
    } finally {
      await second.stop();
    }

    const files = await readdir(join(dir, '.ams'));
    expect(files.sort()).toEqual(['store.jsonl', 'system-keys.json']);
    expect((await stat(join(dir, '.ams'))).mode & 0o777).toBe(0o700);
    for (const f of files) expect((await stat(join(dir, '.ams', f))).mode & 0o777).toBe(0o600);
    const journal = await readFile(join(dir, '.ams', 'store.jsonl'), 'utf8');
    expect(journal).toContain(env['AMS_AGENT_ID']);
    expect(journal).not.toContain(env['AMS_AGENT_TOKEN']);
    expect(journal).not.toContain(env['AMS_AGENT_TOKEN']!.slice(4));
    expect(journal).not.toContain(env['AMS_OWNER_PASSWORD']);
  }, 60_000);

  it('refuses --data without a directory', async () => {
    const io = captureIo();
    expect(await runServe(['--dev', '--data'], io)).toBe(2);
    expect(io.err).toBe("ams serve: --data needs a directory. Run 'ams serve --help'.\n");
  });
});
