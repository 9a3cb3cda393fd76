/**
 * WebSocket flow control against the reference server: with a small
 * high-water mark and a handler that blocks, a burst of 60 messages pauses
 * the agent's reading (TCP holds the rest), the number of events received
 * but not finished stays bounded, the connection stays up, and once the
 * handler is released every message is handled exactly once, in order.
 *
 * Slack: frames `ws` had already read from TCP when `pause()` was called are
 * still emitted; with frames of ~1 KB a socket read holds a handful at most.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import {
  createAccount,
  newAgent,
  recordingLogger,
  startWorld,
  UserSide,
  waitFor,
} from '../../helpers/agent-world.js';

const TOTAL = 60;
const HIGH = 8;
const SLACK = 16;

let server: ReferenceServer;
beforeAll(async () => {
  server = await startWorld();
});
afterAll(() => server.close());

const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('flow control', () => {
  it(`a burst of ${TOTAL} with a blocked handler pauses reading, stays bounded, then all are handled once, in order`, async () => {
    const account = await createAccount(server);
    const logger = recordingLogger();
    const agent = newAgent(server, account, {
      flowControl: { highWaterMark: HIGH, lowWaterMark: 2 },
      logger,
    });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const texts: string[] = [];
    const calls = new Map<string, number>();
    let maxInFlight = 0;
    let connects = 0;
    let disconnects = 0;
    agent.on('connected', () => void (connects += 1));
    agent.on('disconnected', () => void (disconnects += 1));
    agent.on('message.new', async (msg) => {
      maxInFlight = Math.max(maxInFlight, agent.stats().inFlight);
      await gate;
      texts.push(msg.text ?? '');
      calls.set(msg.messageId, (calls.get(msg.messageId) ?? 0) + 1);
    });
    await agent.connect();
    const side = new UserSide(server, account.owner, account.agentId);
    await side.addAgent();
    await side.agentKeys();

    for (let i = 0; i < TOTAL; i++) {
      await side.send({ type: 'text', text: `m${i}` });
      maxInFlight = Math.max(maxInFlight, agent.stats().inFlight);
    }
    await waitFor(() => agent.stats().paused, 'reading paused');
    // Give any frames already read by `ws` time to come through; the rest wait in TCP.
    for (let i = 0; i < 10; i++) {
      await tick(20);
      maxInFlight = Math.max(maxInFlight, agent.stats().inFlight);
    }
    const held = agent.stats();
    expect(held.paused).toBe(true);
    expect(held.pauses).toBeGreaterThanOrEqual(1);
    expect(held.inFlight).toBeGreaterThan(HIGH);
    expect(maxInFlight).toBeLessThanOrEqual(HIGH + SLACK);
    expect(held.received).toBeLessThan(TOTAL);
    expect(logger.lines.some((l) => l.startsWith('debug flow control: pausing reads'))).toBe(true);

    release();
    await waitFor(() => texts.length === TOTAL, 'every message handled', 20_000);
    expect(texts).toEqual(Array.from({ length: TOTAL }, (_, i) => `m${i}`));
    expect([...calls.values()].every((n) => n === 1)).toBe(true);
    await waitFor(() => agent.stats().inFlight === 0, 'nothing in flight');
    const end = agent.stats();
    expect(end.paused).toBe(false);
    expect(end.duplicates).toBe(0);
    expect(logger.lines.some((l) => l.startsWith('debug flow control: resuming reads'))).toBe(true);
    expect(connects).toBe(1);
    expect(disconnects).toBe(0);
    await agent.close();
  });

  it('close() while paused does not hang', async () => {
    const account = await createAccount(server);
    const agent = newAgent(server, account, { flowControl: { highWaterMark: 2 } });
    agent.on('message.new', () => new Promise<void>(() => undefined));
    await agent.connect();
    const side = new UserSide(server, account.owner, account.agentId);
    await side.addAgent();
    await side.agentKeys();
    for (let i = 0; i < 10; i++) await side.send({ type: 'text', text: `m${i}` });
    await waitFor(() => agent.stats().paused, 'reading paused');
    const result = await agent.close({ timeoutMs: 100 });
    expect(result.drained).toBe(false);
    expect(agent.state).toBe('closed');
  });
});
