import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, IncomingMessage } from '../../../packages/sdk/src/agent/index.js';
import { runCli } from '../../../packages/dev/src/cli/run.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { startWorld } from '../../helpers/agent-world.js';
import { captureIo } from '../../unit/cli/helpers.js';
import { bootstrap, echoAgent } from './dev-owner.js';

describe('ams dev send / devices', () => {
  let server: ReferenceServer;
  let env: Record<string, string>;
  let agent: Agent;
  beforeAll(async () => {
    server = await startWorld();
    env = await bootstrap(server);
    agent = await echoAgent(server, env);
  });
  afterAll(async () => {
    await agent.close();
    await server.close();
  });

  it('sends as the owner and prints the reply, 7 times in a row on one device slot', async () => {
    for (let i = 1; i <= 7; i++) {
      const io = captureIo({ env });
      expect(await runCli(['dev', 'send', `hi ${i}`], io), io.err).toBe(0);
      expect(io.out).toBe(`echo: hi ${i}\n`);
      expect(io.err).toBe('');
    }
    expect((await server.control.account(env['AMS_OWNER_EMAIL']!))?.deviceCount).toBe(1);
    const [file] = (await readdir(env['AMS_KEY_DIR']!)).filter((f) => f.startsWith('dev-owner-'));
    const mode = (await stat(join(env['AMS_KEY_DIR']!, file!))).mode & 0o777;
    expect(mode).toBe(0o600);
  });

  it('--file sends an encrypted file; a file reply is printed without its key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ams-dev-send-'));
    try {
      const path = join(dir, 'note.txt');
      await writeFile(path, 'hello from the CLI\n');
      let gotFile: (text: string) => void = () => undefined;
      const received = new Promise<string>((resolve) => (gotFile = resolve));
      const onFile = async (msg: IncomingMessage): Promise<void> => {
        if (msg.payload.type !== 'file') return;
        gotFile(new TextDecoder().decode(await (await agent.files.download(msg.payload)).toBytes()));
        await agent.files.upload(msg.conversationId, new TextEncoder().encode('back'), {
          name: 'back.txt',
          contentType: 'text/plain',
        });
      };
      agent.on('message.new', onFile);
      const io = captureIo({ env });
      expect(await runCli(['dev', 'send', '--file', path, '--content-type', 'text/plain'], io), io.err).toBe(
        0,
      );
      // The CLI exits at the first reply (the echo handler's, possibly before this one downloaded).
      expect(await received).toBe('hello from the CLI\n');
      agent.off('message.new', onFile);
      // The echo handler answers first (no text in a file message), then the file arrives; the first reply is printed.
      expect(io.out).toMatch(/^(echo: |file back\.txt \(4 bytes, text\/plain\))\n$/);
      expect(io.out).not.toContain('"key"');
      const missing = captureIo({ env });
      expect(await runCli(['dev', 'send', '--file', join(dir, 'nope.txt')], missing)).toBe(1);
      expect(missing.err).toContain('not a readable file');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('devices lists the CLI device; --remove frees a slot', async () => {
    const list = captureIo({ env });
    expect(await runCli(['dev', 'devices', '--json'], list), list.err).toBe(0);
    const devices = list.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { device_id: string; current: boolean });
    expect(devices).toHaveLength(1);
    expect(devices[0]!.current).toBe(true);
    const other = await server.control.accessToken(
      (await server.control.account(env['AMS_OWNER_EMAIL']!))!.userId,
    );
    const rm = captureIo({ env });
    expect(await runCli(['dev', 'devices', '--remove', other.deviceId], rm), rm.err).toBe(0);
    expect(rm.out).toBe(`removed device ${other.deviceId}\n`);
    expect((await server.control.account(env['AMS_OWNER_EMAIL']!))?.deviceCount).toBe(1);
  });

  it('a full device list fails with a reason that says how to free a slot', async () => {
    const env2 = await bootstrap(server);
    const userId = (await server.control.account(env2['AMS_OWNER_EMAIL']!))!.userId;
    for (let i = 0; i < 5; i++) await server.control.accessToken(userId);
    const io = captureIo({ env: env2 });
    expect(await runCli(['dev', 'send', 'hi'], io)).toBe(1);
    expect(io.err).toMatch(
      /^ams dev send: .*'ams dev devices' lists them.*DELETE \/users\/me\/devices\/:id\)\n$/,
    );
  });

  it('asks for the bot when its agent never connected', async () => {
    const env2 = await bootstrap(server);
    const io = captureIo({ env: env2 });
    expect(await runCli(['dev', 'send', 'hi'], io)).toBe(1);
    expect(io.err).toBe(
      'ams dev send: the agent has not started yet (it registers its keys when it connects): start the bot first\n',
    );
  });

  it('exits 1 with one line when no reply comes in time', async () => {
    const env2 = await bootstrap(server);
    await (await echoAgent(server, env2)).close(); // keys registered, then the bot stops
    const io = captureIo({ env: env2 });
    expect(await runCli(['dev', 'send', 'anyone?', '--timeout', '1'], io)).toBe(1);
    expect(io.err).toBe(
      `ams dev send: no reply from agent ${env2['AMS_AGENT_ID']} within 1 s: is the bot running? (--timeout S waits longer)\n`,
    );
    expect(io.out).toBe('');
  });

  it('reads .env of the working directory, or --env-file, itself (issue #28: `npx ams dev send`)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ams-env-file-'));
    try {
      const lines = Object.entries(env).map(([k, v]) => `${k}=${v}`);
      await writeFile(join(dir, '.env'), `# ams dev bootstrap > .env\n${lines.join('\n')}\n`);
      const byDefault = captureIo({ workDir: dir });
      expect(await runCli(['dev', 'send', 'from .env'], byDefault), byDefault.err).toBe(0);
      expect(byDefault.out).toBe('echo: from .env\n');
      await writeFile(join(dir, 'bot.env'), lines.join('\n'));
      const named = captureIo();
      const argv = ['--env-file', join(dir, 'bot.env'), 'dev', 'send', 'named'];
      expect(await runCli(argv, named), named.err).toBe(0);
      expect(named.out).toBe('echo: named\n');
      // The environment wins over the file, as with node --env-file.
      const gone = await startWorld();
      await gone.close();
      const over = captureIo({ env: { AMS_BASE_URL: gone.url }, workDir: dir });
      expect(await runCli(['dev', 'send', 'hi'], over)).toBe(1);
      expect(over.err).toContain(`cannot reach the server at ${gone.url}`);
      const missing = captureIo();
      expect(await runCli(['--env-file', join(dir, 'nope.env'), 'dev', 'send', 'x'], missing)).toBe(2);
      expect(missing.err).toMatch(/^ams: cannot read the env file .*nope\.env/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('without bootstrap variables says to run ams dev bootstrap', async () => {
    const io = captureIo({ env: { AMS_BASE_URL: server.url } });
    expect(await runCli(['dev', 'send', 'hi'], io)).toBe(1);
    expect(io.err).toBe(
      "ams dev send: AMS_OWNER_EMAIL is not set: run 'ams dev bootstrap' first and load its output (e.g. into .env)\n",
    );
  });

  it('names the URL when the server is not reachable', async () => {
    const gone = await startWorld();
    const url = gone.url;
    await gone.close();
    const io = captureIo({ env: { ...env, AMS_BASE_URL: url } });
    expect(await runCli(['dev', 'send', 'hi'], io)).toBe(1);
    expect(io.err).toBe(
      `ams dev send: cannot reach the server at ${url}: is 'ams serve --dev' running there?\n`,
    );
    expect(io.err).not.toContain(env['AMS_OWNER_PASSWORD']!);
  });
});
