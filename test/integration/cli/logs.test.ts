import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryLogEntrySchema } from '../../../packages/sdk/src/protocol.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { runLogs } from '../../../packages/dev/src/cli/commands/logs.js';
import { runCli } from '../../../packages/dev/src/cli/run.js';
import {
  createTestAgent,
  createTestUser,
  startAgentServer,
  type TestAgent,
} from '../../helpers/server-agents.js';
import { answer, startScriptedReceiver, type ScriptedReceiver } from '../../helpers/server-receiver.js';
import { captureIo } from '../../unit/cli/helpers.js';

describe('ams logs', () => {
  let server: ReferenceServer;
  let receiver: ScriptedReceiver;
  let agent: TestAgent;
  let env: Record<string, string>;

  async function deliver(...actions: ReturnType<typeof answer.status>[]): Promise<void> {
    receiver.script(...actions);
    await server.control.sendSystemEvent(agent.agentId, 'agent.capability_changed', { accepted: true });
    await server.control.deliveryIdle();
  }

  beforeAll(async () => {
    server = await startAgentServer();
    receiver = await startScriptedReceiver();
    agent = await createTestAgent(server, await createTestUser(server));
    await server.control.setWebhook(agent.agentId, { url: receiver.url });
    env = { AMS_BASE_URL: server.url, AMS_AGENT_ID: agent.agentId, AMS_AGENT_TOKEN: agent.token };
    await deliver(answer.status(200));
    await deliver(answer.status(410));
  });
  afterAll(async () => {
    await server.close();
    await receiver.close();
  });

  it('prints the log oldest first, one line per delivery', async () => {
    const io = captureIo({ env });
    expect(await runCli(['logs'], io)).toBe(0);
    const lines = io.out.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^\S+Z {2}delivered {4}agent\.capability_changed {2}1 attempt {2}latency \d+ ms {2}[0-9a-f-]{36}$/,
    );
    expect(lines[1]).toMatch(
      /^\S+Z {2}failed {7}agent\.capability_changed {2}1 attempt {2}error http_4xx {2}[0-9a-f-]{36}$/,
    );
    expect(io.out + io.err).not.toContain(agent.token);
  });

  it('--json prints one entry per line as the service sent it; --limit is passed on', async () => {
    const io = captureIo();
    const argv = [
      'logs',
      '--json',
      '--limit',
      '1',
      '--base-url',
      server.url,
      '--agent-id',
      agent.agentId,
      '--token',
      agent.token,
    ];
    expect(await runCli(argv, io)).toBe(0);
    const lines = io.out.trim().split('\n');
    expect(lines).toHaveLength(1);
    const entry = DeliveryLogEntrySchema.parse(JSON.parse(lines[0]!));
    expect(entry).toMatchObject({ final_status: 'failed', agent_id: agent.agentId });
  });

  it('--follow prints new entries once until stopped', async () => {
    const io = captureIo({ env });
    const stop = new AbortController();
    const polls: number[] = [];
    const run = runLogs(['--follow', '--json'], io, { stop: stop.signal, intervalMs: 10 });
    const waitForLines = async (n: number) => {
      while (io.out.trim().split('\n').filter(Boolean).length < n) {
        polls.push(Date.now());
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    await waitForLines(2);
    await deliver(answer.status(200));
    await waitForLines(3);
    await new Promise((r) => setTimeout(r, 50)); // several more polls with nothing new
    stop.abort();
    expect(await run).toBe(0);
    const ids = io.out
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { delivery_id: string }).delivery_id);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
  });

  it('exits 1 for a wrong token, 2 without agent id or token', async () => {
    const io = captureIo({ env: { ...env, AMS_AGENT_TOKEN: `hsk_${'x'.repeat(40)}` } });
    expect(await runCli(['logs'], io)).toBe(1);
    expect(io.err).toMatch(/HTTP 401 AGENT_TOKEN_INVALID/);
    const follow = captureIo({ env: { ...env, AMS_AGENT_TOKEN: `hsk_${'x'.repeat(40)}` } });
    expect(await runLogs(['--follow'], follow, { stop: new AbortController().signal, intervalMs: 10 })).toBe(
      1,
    );
    const none = captureIo({ env: { AMS_BASE_URL: server.url } });
    expect(await runCli(['logs'], none)).toBe(2);
    expect(none.err).toMatch(/--agent-id \(or AMS_AGENT_ID\) is required/);
    expect(await runCli(['logs', '--limit', '501'], captureIo({ env }))).toBe(2);
  });
});
