/**
 * A 429 storm is absorbed: another process eats the agent's 5-per-second
 * message budget while the agent's handlers reply to a burst; the service
 * answers 429 MESSAGE_RATE_LIMITED, the REST client waits and retries, and no
 * error reaches a handler or the error channel.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AmsError } from '../../../packages/sdk/src/core/errors/index.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { call } from '../../helpers/server-http.js';
import {
  agentSigningKey,
  createAccount,
  newAgent,
  startWorld,
  UserSide,
  waitFor,
} from '../../helpers/agent-world.js';

const BURST = 12;

let server: ReferenceServer;
beforeAll(async () => {
  server = await startWorld();
});
afterAll(() => server.close());

describe('rate limits', () => {
  it('absorbs a 429 storm: every reply is sent, no error reaches the handler', async () => {
    const account = await createAccount(server);
    const agent = newAgent(server, account, { retry: { baseDelayMs: 20, maxDelayMs: 200, maxAttempts: 8 } });
    const errors: AmsError[] = [];
    const limited: string[] = [];
    let replied = 0;
    agent.on('error', (e) => void errors.push(e));
    agent.on('rateLimited', (info) => void limited.push(info.code));
    agent.on('message.new', async (m) => {
      await m.reply(`re: ${m.text}`);
      replied += 1;
    });
    await agent.connect();
    const side = new UserSide(server, account.owner, account.agentId);
    const conversationId = await side.addAgent();
    await waitFor(() => agent.stats().handled === 1, 'relation.established');

    // Another process with the same token fills the server's window (refused bodies count too).
    const storm = async (): Promise<void> => {
      for (let round = 0; round < 3; round++) {
        await Promise.all(
          Array.from({ length: 5 }, () =>
            call(server, 'POST', `/agents/${account.agentId}/messages`, {
              token: account.token,
              json: { conversation_id: conversationId },
            }),
          ),
        );
        await new Promise((resolve) => setTimeout(resolve, 400));
      }
    };
    const sends = (async () => {
      for (let i = 0; i < BURST; i++) await side.send({ type: 'text', text: `q${i}` });
    })();
    await Promise.all([storm(), sends]);
    await waitFor(() => replied === BURST, 'every reply', 30_000);
    expect(limited.length).toBeGreaterThan(0);
    expect(new Set(limited)).toEqual(new Set(['MESSAGE_RATE_LIMITED']));
    expect(errors).toEqual([]);
    expect(agent.stats().handlerErrors).toBe(0);
    const replies = await side.repliesFromAgent(await agentSigningKey(server, account));
    expect(replies.map((r) => (r.payload as { text: string }).text).sort()).toEqual(
      Array.from({ length: BURST }, (_, i) => `re: q${i}`).sort(),
    );
    await agent.close();
  });
});
