/**
 * The server restarted 5 times mid-stream with 1,000 messages in flight:
 * every message is handled exactly once (exact counts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { createAccount, newAgent, startWorld, UserSide, waitFor } from '../../helpers/agent-world.js';

const TOTAL = 1_000;
const RESTARTS = 5;
const SENDERS = 4;

let server: ReferenceServer;
beforeAll(async () => {
  server = await startWorld();
});
afterAll(() => server.close());

describe('server restarts mid-stream', () => {
  it(`handles each of ${TOTAL} messages exactly once across ${RESTARTS} restarts`, async () => {
    const account = await createAccount(server);
    const agent = newAgent(server, account);
    const calls = new Map<string, number>();
    let connects = 0;
    let disconnects = 0;
    agent.on('connected', () => void (connects += 1));
    agent.on('disconnected', () => void (disconnects += 1));
    agent.on('message.new', (msg) => {
      calls.set(msg.messageId, (calls.get(msg.messageId) ?? 0) + 1);
    });
    await agent.connect();
    const side = new UserSide(server, account.owner, account.agentId);
    await side.addAgent();
    await side.agentKeys();

    const sentIds: string[] = [];
    let next = 0;
    const sender = async (): Promise<void> => {
      while (next < TOTAL) {
        const i = next++;
        sentIds.push(await side.send({ type: 'text', text: `m${i}` }));
      }
    };
    const restarter = async (): Promise<void> => {
      for (let r = 1; r <= RESTARTS; r++) {
        const at = Math.floor((TOTAL * r) / (RESTARTS + 1));
        await waitFor(() => sentIds.length >= at, `${at} sends`, 30_000);
        await server.restart({ downtimeMs: 40 });
      }
    };
    await Promise.all([restarter(), ...Array.from({ length: SENDERS }, sender)]);
    expect(new Set(sentIds).size).toBe(TOTAL);

    await waitFor(() => calls.size === TOTAL, 'every message handled', 30_000);
    await agent.close();
    expect([...calls.values()].every((n) => n === 1)).toBe(true);
    expect([...calls.keys()].sort()).toEqual([...sentIds].sort());
    const stats = agent.stats();
    expect(stats.handled).toBe(TOTAL + 1); // + relation.established
    expect(stats.decryptFailures).toBe(0);
    expect(stats.handlerErrors).toBe(0);
    expect(disconnects).toBeGreaterThanOrEqual(RESTARTS);
    expect(connects).toBeGreaterThanOrEqual(RESTARTS + 1);
  });
});
