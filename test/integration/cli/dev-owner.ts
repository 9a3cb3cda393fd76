/** Shared set-up of the `ams dev send|chat|devices` tests: a bootstrapped owner and an echo agent. */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Agent } from '../../../packages/sdk/src/agent/index.js';
import { runCli } from '../../../packages/dev/src/cli/run.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { newAgent } from '../../helpers/agent-world.js';
import { captureIo } from '../../unit/cli/helpers.js';

/** Runs `ams dev bootstrap` against `server` with a fresh key directory; returns its variables. */
export async function bootstrap(server: ReferenceServer): Promise<Record<string, string>> {
  const keyDir = await mkdtemp(join(tmpdir(), 'ams-dev-'));
  const io = captureIo();
  expect(
    await runCli(['dev', 'bootstrap', '--base-url', server.url, '--key-dir', keyDir, '--json'], io),
  ).toBe(0);
  return JSON.parse(io.out) as Record<string, string>;
}

/** An agent that answers every text with `echo: <text>`. */
export async function echoAgent(server: ReferenceServer, env: Record<string, string>): Promise<Agent> {
  const agent = newAgent(server, { agentId: env['AMS_AGENT_ID']!, token: env['AMS_AGENT_TOKEN']! });
  agent.on('message.new', async (msg) => {
    await msg.reply(`echo: ${msg.text ?? ''}`);
  });
  await agent.connect();
  return agent;
}
