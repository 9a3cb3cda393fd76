import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { runCli } from '../../../packages/dev/src/cli/run.js';
import { call, uniqueEmail } from '../../helpers/server-http.js';
import { startAgentServer } from '../../helpers/server-agents.js';
import { captureIo } from '../../unit/cli/helpers.js';

describe('ams token rotate|revoke', () => {
  let server: ReferenceServer;
  let env: Record<string, string>;
  let userId: string;

  beforeAll(async () => {
    server = await startAgentServer();
    const email = uniqueEmail('owner');
    userId = await server.control.createUser({ email, password: 'owner-password' });
    const agent = await server.control.createAgent({ ownerId: userId });
    env = {
      AMS_BASE_URL: server.url,
      AMS_AGENT_ID: agent.agentId,
      AMS_AGENT_TOKEN: agent.token,
      AMS_OWNER_EMAIL: email,
      AMS_OWNER_PASSWORD: 'owner-password',
    };
  });
  afterAll(() => server.close());

  const agentCall = (token: string) => call(server, 'GET', `/agents/${env['AMS_AGENT_ID']}`, { token });

  it('rotate prints the new token once; the old one stays valid in grace; the CLI session is signed out', async () => {
    const io = captureIo({ env });
    expect(await runCli(['token', 'rotate'], io)).toBe(0);
    const token = /^AMS_AGENT_TOKEN=(hsk_[0-9A-Za-z]{40})\n$/.exec(io.out)?.[1];
    expect(token).toBeDefined();
    expect(io.err).toMatch(/the old token stays valid until \S+/);
    expect(io.err).toContain('Restart the agent with the new token: it registers new keys by itself.');
    expect(io.err).not.toMatch(/register a new key pair/i);
    expect(io.err).not.toContain(token!);
    expect((await agentCall(token!)).status).toBe(200);
    expect((await agentCall(env['AMS_AGENT_TOKEN']!)).status).toBe(200);
    expect((await server.control.account(env['AMS_OWNER_EMAIL']!))?.deviceCount).toBe(0);
    env['AMS_AGENT_TOKEN'] = token!;
  });

  it('rotate --emergency --json invalidates the old token at once', async () => {
    const old = env['AMS_AGENT_TOKEN']!;
    const io = captureIo({ env });
    expect(await runCli(['token', 'rotate', '--emergency', '--json'], io)).toBe(0);
    const out = JSON.parse(io.out) as { token: string; emergency: boolean; agent_id: string };
    expect(out).toMatchObject({ emergency: true, agent_id: env['AMS_AGENT_ID'] });
    expect((await agentCall(old)).status).toBe(401);
    expect((await agentCall(out.token)).status).toBe(200);
    env['AMS_AGENT_TOKEN'] = out.token;
  });

  it('revoke deletes the token', async () => {
    const io = captureIo();
    const argv = [
      'token',
      'revoke',
      '--base-url',
      server.url,
      '--agent-id',
      env['AMS_AGENT_ID']!,
      '--email',
      env['AMS_OWNER_EMAIL']!,
      '--password',
      'owner-password',
    ];
    expect(await runCli(argv, io)).toBe(0);
    expect(io.out).toBe(`revoked the token of agent ${env['AMS_AGENT_ID']}; 0 connection(s) closed\n`);
    expect((await agentCall(env['AMS_AGENT_TOKEN']!)).status).toBe(401);
  });

  it('rotate after revoke says no earlier token stays valid', async () => {
    const io = captureIo({ env });
    expect(await runCli(['token', 'rotate'], io)).toBe(0);
    expect(io.err).not.toMatch(/stays valid (until|for)/);
    expect(io.err).toContain('no earlier token stays valid');
    const json = captureIo({ env });
    expect(await runCli(['token', 'rotate', '--json'], json)).toBe(0);
    // The token printed by the first rotation is in grace now: its end is reported.
    expect(
      (JSON.parse(json.out) as { previous_token_valid_until: unknown }).previous_token_valid_until,
    ).toEqual(expect.any(String));
  });

  it('exits 1 on a wrong password or a foreign agent, 2 without credentials', async () => {
    const wrong = captureIo({ env: { ...env, AMS_OWNER_PASSWORD: 'not-the-password' } });
    expect(await runCli(['token', 'rotate'], wrong)).toBe(1);
    expect(wrong.err).toMatch(/HTTP 401 UNAUTHORIZED/);
    expect(wrong.err).not.toContain('not-the-password');
    const foreign = captureIo({ env: { ...env, AMS_AGENT_ID: '00000000-0000-4000-8000-000000000000' } });
    expect(await runCli(['token', 'revoke'], foreign)).toBe(1);
    expect(foreign.err).toMatch(/HTTP 404 AGENT_NOT_FOUND/);
    const none = captureIo({ env: { AMS_BASE_URL: server.url, AMS_AGENT_ID: 'x' } });
    expect(await runCli(['token', 'rotate'], none)).toBe(2);
    expect(none.err).toMatch(/--email \(or AMS_OWNER_EMAIL\) is required/);
  });
});
