import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../../packages/sdk/src/agent/index.js';
import { runCli } from '../../../packages/dev/src/cli/run.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { call } from '../../helpers/server-http.js';
import { captureIo } from '../../unit/cli/helpers.js';
import { startWorld, waitFor } from '../../helpers/agent-world.js';
import { bootstrap, echoAgent } from './dev-owner.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const BIN = join(ROOT, 'packages', 'dev', 'src', 'cli', 'index.ts');

describe('ams dev chat (spawned, typed into stdin)', () => {
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

  it('sends each line, prints the echoes as they arrive, and exits 0 on EOF', async () => {
    const child = spawn(TSX, [BIN, 'dev', 'chat'], { cwd: ROOT, env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
    await waitFor(() => err.includes('Ctrl-D ends'), `the chat to start (${err})`, 30_000);
    child.stdin.write('hello there\n');
    await waitFor(() => out.includes('agent: echo: hello there\n'), `the first echo (${out}${err})`);
    child.stdin.write('second line\n');
    await waitFor(() => out.includes('agent: echo: second line\n'), `the second echo (${out}${err})`);
    child.stdin.end();
    expect(await exit, err).toBe(0);
    expect(out).toBe('agent: echo: hello there\nagent: echo: second line\n');
    expect(err).not.toContain(env['AMS_OWNER_PASSWORD']!);
    expect(err).not.toContain(env['AMS_AGENT_TOKEN']!);
  }, 60_000);

  it('piped input: answers to the last lines are still printed after EOF; Ctrl-C also exits 0', async () => {
    const piped = spawn(TSX, [BIN, 'dev', 'chat'], { cwd: ROOT, env: { ...process.env, ...env } });
    let out = '';
    piped.stdout.on('data', (d: Buffer) => (out += d.toString()));
    piped.stdin.end('one\ntwo\n');
    expect(await new Promise((resolve) => piped.on('close', resolve))).toBe(0);
    expect(out).toContain('agent: echo: one\n');
    expect(out).toContain('agent: echo: two\n');

    const typed = spawn(TSX, [BIN, 'dev', 'chat'], { cwd: ROOT, env: { ...process.env, ...env } });
    let err = '';
    typed.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exit = new Promise((resolve) => typed.on('close', resolve));
    await waitFor(() => err.includes('Ctrl-D ends'), 'the chat to start', 30_000);
    typed.kill('SIGINT');
    expect(await exit, err).toBe(0);
  }, 60_000);
});

describe('ams dev chat (in-process)', () => {
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

  it('exits 1 with a reason when its device is removed from elsewhere', async () => {
    const stdin = new PassThrough();
    const io = captureIo({ env });
    io.stdin = stdin;
    const exit = runCli(['dev', 'chat'], io);
    await waitFor(() => io.err.includes('Ctrl-D ends'), 'the chat to start');
    stdin.write('ping\n');
    await waitFor(() => io.out.includes('agent: echo: ping\n'), 'the echo');
    const [file] = (await readdir(env['AMS_KEY_DIR']!)).filter((f) => f.startsWith('dev-owner-'));
    const state = JSON.parse(await readFile(join(env['AMS_KEY_DIR']!, file!), 'utf8')) as {
      device_id: string;
    };
    const userId = (await server.control.account(env['AMS_OWNER_EMAIL']!))!.userId;
    const other = await server.control.accessToken(userId);
    const removed = await call(server, 'DELETE', `/users/me/devices/${state.device_id}`, {
      token: other.accessToken,
    });
    expect(removed.status, removed.text).toBe(200);
    expect(await exit).toBe(1);
    expect(io.err).toContain('ams dev chat: this device was signed out\n');
    expect(io.err).toMatch(/ams dev chat: connection lost: .+\n$/);
  });
});
