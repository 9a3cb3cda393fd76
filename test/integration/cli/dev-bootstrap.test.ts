import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { runCli } from '../../../packages/dev/src/cli/run.js';
import { call } from '../../helpers/server-http.js';
import { startAgentServer } from '../../helpers/server-agents.js';
import { captureIo } from '../../unit/cli/helpers.js';

function envLines(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

describe('ams dev bootstrap', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startAgentServer();
  });
  afterAll(() => server.close());

  it('creates a user and an agent and prints working env lines', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ams-bootstrap-'));
    const io = captureIo({ env: { AMS_BASE_URL: server.url }, workDir: dir });
    expect(await runCli(['dev', 'bootstrap', '--key-dir', 'tmp-keys'], io)).toBe(0);
    await rm(dir, { recursive: true });
    const env = envLines(io.out);
    expect(Object.keys(env)).toEqual([
      'AMS_BASE_URL',
      'AMS_AGENT_ID',
      'AMS_AGENT_TOKEN',
      'AMS_KEY_DIR',
      'PORT',
      'AMS_OWNER_EMAIL',
      'AMS_OWNER_PASSWORD',
    ]);
    expect(env['AMS_BASE_URL']).toBe(server.url);
    expect(env['AMS_KEY_DIR']).toBe(resolve(dir, 'tmp-keys'));
    expect(env['PORT']).toBe('3000');
    expect(env['AMS_AGENT_TOKEN']).toMatch(/^hsk_[0-9A-Za-z]{40}$/);
    // The token works for the agent, and the owner can sign in with the printed password.
    const agent = await call(server, 'GET', `/agents/${env['AMS_AGENT_ID']}`, {
      token: env['AMS_AGENT_TOKEN']!,
    });
    expect(agent.status, agent.text).toBe(200);
    const login = await call(server, 'POST', '/auth/login', {
      json: {
        email: env['AMS_OWNER_EMAIL'],
        account_password: env['AMS_OWNER_PASSWORD'],
        turnstile_token: 't',
      },
    });
    expect(login.status, login.text).toBe(200);
    expect(io.err).toMatch(
      /^ams dev bootstrap: created user \S+ and agent \S+; the token and password above are not shown again\.\nams dev bootstrap: keep \.env and tmp-keys\/ out of git \(the token and the private keys\): add them to \.gitignore\.\n$/,
    );
    expect(io.err).not.toContain(env['AMS_AGENT_TOKEN']!);
  });

  it('appends .env and the key directory to an existing .gitignore, once (issue #28)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ams-bootstrap-git-'));
    try {
      await writeFile(join(dir, '.gitignore'), 'node_modules');
      const io = captureIo({ env: { AMS_BASE_URL: server.url }, workDir: dir });
      expect(await runCli(['dev', 'bootstrap'], io), io.err).toBe(0);
      expect(io.err).toContain(
        'ams dev bootstrap: added .env and .ams-keys/ to .gitignore (the token and the private keys stay out of git).\n',
      );
      const after = await readFile(join(dir, '.gitignore'), 'utf8');
      expect(after).toBe(
        'node_modules\n# ams dev bootstrap: the agent token and private keys\n.env\n.ams-keys/\n',
      );
      const again = captureIo({ env: { AMS_BASE_URL: server.url }, workDir: dir });
      expect(await runCli(['dev', 'bootstrap'], again), again.err).toBe(0);
      expect(await readFile(join(dir, '.gitignore'), 'utf8')).toBe(after);
      expect(again.err).not.toContain('.gitignore');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('registers --webhook-url, prints the secret, derives PORT; --json gives an object', async () => {
    const io = captureIo();
    const argv = [
      'dev',
      'bootstrap',
      '--base-url',
      server.url,
      '--webhook-url',
      'http://127.0.0.1:4567/hook',
      '--json',
      '--email',
      'Dev@Example.com',
      '--password',
      'correct horse',
    ];
    expect(await runCli(argv, io)).toBe(0);
    const out = JSON.parse(io.out) as Record<string, string>;
    expect(out).toMatchObject({
      AMS_BASE_URL: server.url,
      PORT: '4567',
      AMS_OWNER_EMAIL: 'Dev@Example.com',
      AMS_OWNER_PASSWORD: 'correct horse',
    });
    expect(Buffer.from(out['AMS_WEBHOOK_SECRET']!, 'base64').length).toBeGreaterThanOrEqual(32);
    const view = await server.control.agent(out['AMS_AGENT_ID']!);
    expect(view).toMatchObject({ delivery_mode: 'webhook', webhook_url: 'http://127.0.0.1:4567/hook' });
  });

  it('quotes values for the shell when needed', async () => {
    const io = captureIo();
    expect(
      await runCli(
        ['dev', 'bootstrap', '--base-url', server.url, '--password', "it's a pass", '--port', '8081'],
        io,
      ),
    ).toBe(0);
    expect(io.out).toContain("AMS_OWNER_PASSWORD='it'\\''s a pass'\n");
    expect(io.out).toContain('PORT=8081\n');
  });

  it('exits 1 with a pointer to --dev when the server has no control API', async () => {
    const prod = await startAgentServer({ dev: false });
    try {
      const io = captureIo();
      expect(await runCli(['dev', 'bootstrap', '--base-url', prod.url], io)).toBe(1);
      expect(io.err).toBe(
        `ams dev bootstrap: ${prod.url} has no control API: start the reference server with 'ams serve --dev'\n`,
      );
      expect(io.out).toBe('');
    } finally {
      await prod.close();
    }
  });

  it.each([
    [['--base-url', 'ftp://x'], /--base-url must be an absolute http\(s\) URL/],
    [['--webhook-url', 'nope'], /--webhook-url must be an absolute http\(s\) URL/],
    [['--port', '0'], /--port needs a whole number from 1 to 65535/],
  ])('exits 2 on %j', async (argv, message) => {
    const io = captureIo();
    expect(await runCli(['dev', 'bootstrap', ...argv], io)).toBe(2);
    expect(io.err).toMatch(message);
  });
});
