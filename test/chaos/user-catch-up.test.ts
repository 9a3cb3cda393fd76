/**
 * Chaos, the human side: the UserClient's WebSocket goes through the fault
 * proxy (10 ms latency per chunk, so frames are always in flight) while 4
 * agents send it 600 messages (150 each, one conversation each) and the
 * proxy resets the socket 3 times and partitions it (server → user bytes
 * dropped for 300 ms, then a reset) twice; one more fault is a 24 h jump of
 * virtual time, which expires the user's access token (close 4003) and the
 * 8 messages the user sent to an agent that never connected, so the server
 * produces 8 `delivery.failed` notices while the user reconnects. The
 * UserClient must end with every message exactly once and in order per
 * conversation, and with every notice exactly once, in order.
 *
 * Before acknowledged delivery to users, every fault lost what was in
 * flight, and the notices reached only the inbox.
 *
 * The agents' sends are paced on virtual time (5 per agent, then 1 s) to stay
 * within the server's 5 messages per second per agent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ReceivedMessage, UserClient } from '../../packages/sdk/src/client/index.js';
import type { ReferenceServer } from '../../packages/dev/src/testing/index.js';
import { worldClock } from '../../packages/dev/src/testing/test-world-parts.js';
import { FAST_RECONNECT, startWorld } from '../helpers/agent-world.js';
import { expectClean } from '../helpers/chaos.js';
import { ChaosRecorder, messageText } from '../helpers/chaos-recorder.js';
import { newUserClient, signUp, startAgent, type TestAgentRuntime } from '../helpers/client-setup.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';

const AGENTS = 4;
const ROUNDS = 30;
const PER_ROUND = 5;
const TOTAL = AGENTS * ROUNDS * PER_ROUND;
const NOTICES = 8;
const DAY_MS = 24 * 3_600_000;

let server: ReferenceServer | undefined;
let proxy: FaultProxy | undefined;
let client: UserClient | undefined;
afterEach(async () => {
  await client?.disconnect();
  await proxy?.close();
  await server?.close();
  client = undefined;
  proxy = undefined;
  server = undefined;
});

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`chaos: timed out waiting for ${what}`);
    await pause(5);
  }
}

describe('chaos: the UserClient through resets, partitions and a 24 h jump', () => {
  it('600 messages over 4 conversations and 8 notices: none lost, none twice, none out of order', async () => {
    server = await startWorld({ virtualTime: true });
    const s = server;
    proxy = await startFaultProxy({ target: { host: '127.0.0.1', port: Number(new URL(s.url).port) } });
    const p = proxy;
    const c = newUserClient(s, {
      webSocketUrl: `ws://127.0.0.1:${p.port}/ws`,
      backoff: FAST_RECONNECT,
      clock: worldClock(s),
    });
    client = c;
    await signUp(s, c);

    const agents: { runtime: TestAgentRuntime; conversationId: string }[] = [];
    for (let i = 0; i < AGENTS; i++) {
      const created = await c.createAgent({ name: `Sender ${i}` });
      const runtime = await startAgent(s, created.agentId, created.token, { unthrottled: true });
      agents.push({ runtime, conversationId: (await c.addAgent(created.agentId)).conversationId });
    }
    const offline = await c.createAgent({ name: 'Offline' });
    await startAgent(s, offline.agentId, offline.token); // keys registered, never connected
    const offlineConversation = (await c.addAgent(offline.agentId)).conversationId;

    const recorder = new ChaosRecorder(AGENTS);
    const notices: string[] = [];
    const strays: string[] = [];
    let connects = 0;
    const closes: number[] = [];
    c.on('message', (m: ReceivedMessage) => {
      if (m.event === 'delivery.failed')
        notices.push(String(m.payload.type === 'delivery.failed' ? m.payload.message_id : undefined));
      else if (m.senderId === offline.agentId || m.conversationId === offlineConversation)
        strays.push(m.messageId);
      else recorder.handled(String(m.payload.type === 'text' ? m.payload.text : undefined));
    });
    c.on('messageFailed', (f) => strays.push(`failed ${f.messageId ?? '?'}`));
    c.on('connected', () => void (connects += 1));
    c.on('disconnected', ({ code }) => void closes.push(code));
    await c.connect();
    p.delay(10);

    const undelivered: string[] = [];
    for (let i = 0; i < NOTICES; i++) {
      undelivered.push(
        (await c.send(offlineConversation, { type: 'text', text: `to offline ${i}` })).messageId,
      );
    }

    const reconnected = (before: number): Promise<void> => until(() => connects > before, 'a reconnect');
    const faults = new Map<number, { name: string; run: () => Promise<void> }>([
      [5, { name: 'reset', run: async () => void p.reset() }],
      [10, { name: 'partition', run: () => p.partition('downstream', 300, { resetAfter: true }) }],
      [15, { name: 'reset', run: async () => void p.reset() }],
      [20, { name: '24 h jump', run: async () => s.advanceTime(DAY_MS) }],
      [24, { name: 'partition', run: () => p.partition('downstream', 300, { resetAfter: true }) }],
      [27, { name: 'reset', run: async () => void p.reset() }],
    ]);

    for (let round = 0; round < ROUNDS; round++) {
      const fault = faults.get(round);
      const before = connects;
      const running = fault?.run();
      await Promise.all(
        agents.map(async ({ runtime, conversationId }, conv) => {
          for (let k = 0; k < PER_ROUND; k++) {
            const seq = round * PER_ROUND + k;
            await runtime.sender.send(conversationId, { type: 'text', text: messageText(conv, seq) });
            recorder.sent(conv, seq);
          }
        }),
      );
      if (running !== undefined) {
        await running;
        await reconnected(before);
      }
      s.advanceTime(1_000);
    }

    // Judged as it stands once complete, or after 10 s (then the counts say what is missing).
    await until(
      () => recorder.distinctHandled === TOTAL && notices.length === NOTICES,
      'the end',
      10_000,
    ).catch(() => undefined);
    await pause(300); // a late duplicate would show now
    expectClean(recorder.report(), TOTAL);
    expect(notices).toEqual(undelivered);
    expect(strays).toEqual([]);
    expect(closes.filter((code) => code === 4003)).toHaveLength(1);
    expect(p.stats().resets).toBeGreaterThanOrEqual(5);
    expect(connects).toBeGreaterThanOrEqual(7);
  }, 90_000);
});
