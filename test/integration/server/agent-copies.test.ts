/**
 * Several live sockets per agent on the reference server (issue #25, gap
 * decisions in docs/production.md): `share: true` in `auth`, conversation
 * affinity, moves in order when a socket leaves, `connection.drain`, the cap
 * of 10 sockets, and the typed errors of a takeover and of the cap.
 * Real sockets; events are system events in chosen conversations.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WS_CLOSE_CODES } from '../../../packages/sdk/src/core/protocol/ws-close.js';
import { SCALE_FRAMES } from '../../../packages/sdk/src/core/protocol/service-names.js';
import { fatalError } from '../../../packages/sdk/src/transport/ws/decide.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import {
  agentSocket,
  createTestAgent,
  createTestUser,
  startAgentServer,
  type TestUser,
} from '../../helpers/server-agents.js';
import type { Frame, WsProbe } from '../../helpers/server-ws.js';

let server: ReferenceServer;
let owner: TestUser;

beforeAll(async () => {
  server = await startAgentServer();
});
afterAll(() => server.close());
beforeEach(async () => {
  owner = await createTestUser(server, false);
});

type Agent = Awaited<ReturnType<typeof createTestAgent>>;

/** A socket sharing the agent's delivery, with acks. */
async function shared(agent: Agent): Promise<WsProbe> {
  const { probe, answer } = await agentSocket(server, agent, { share: true, ack: true });
  expect(answer).toMatchObject({ type: 'auth.ok', share: { max_sockets: 10 } });
  return probe;
}

/** Sends `n` events in conversation `conv` (payload `seq` 0…n-1 after `from`). */
async function send(agent: Agent, conv: string, n: number, from = 0): Promise<void> {
  for (let seq = from; seq < from + n; seq++)
    expect(
      await server.control.sendSystemEvent(agent.agentId, 'agent.capability_changed', { seq }, conv),
    ).toBe('queued');
}

const events = (probe: WsProbe): Frame[] => probe.frames.filter((f) => f.type === 'agent.capability_changed');
const convOf = (f: Frame): string => String((f['metadata'] as { conversation_id: string }).conversation_id);

/** Resolves once the probes received `n` events in all. */
async function received(probes: readonly WsProbe[], n: number): Promise<void> {
  await expect.poll(() => probes.reduce((sum, p) => sum + events(p).length, 0)).toBe(n);
}

function ack(probe: WsProbe, frames: readonly Frame[]): void {
  probe.send({ type: 'ack', delivery_ids: frames.map((f) => String(f['delivery_id'])) });
}

describe('several live sockets per agent (share)', () => {
  it('both sockets stay open; each conversation goes to one of them; conversations are spread', async () => {
    const agent = await createTestAgent(server, owner);
    const a = await shared(agent);
    const b = await shared(agent);
    const convs = ['c1', 'c2', 'c3', 'c4'];
    for (const conv of convs) await send(agent, conv, 3);
    await received([a, b], 12);
    expect(a.isOpen && b.isOpen).toBe(true);
    const owners = new Map<string, Set<WsProbe>>();
    for (const p of [a, b])
      for (const f of events(p)) owners.set(convOf(f), (owners.get(convOf(f)) ?? new Set()).add(p));
    for (const conv of convs) expect(owners.get(conv)?.size, conv).toBe(1);
    expect(new Set(events(a).map(convOf)).size).toBe(2);
    expect(new Set(events(b).map(convOf)).size).toBe(2);
    a.close();
    b.close();
  });

  it('a socket that leaves: its unacknowledged deliveries go to the sibling first, in order, then the rest', async () => {
    const agent = await createTestAgent(server, owner);
    const a = await shared(agent);
    await send(agent, 'c1', 3);
    await received([a], 3);
    const b = await shared(agent);
    a.close();
    await a.closed;
    await send(agent, 'c1', 2, 3);
    await received([b], 5);
    const ids = events(b).map((f) => String(f['delivery_id']));
    expect(ids.slice(0, 3)).toEqual(events(a).map((f) => String(f['delivery_id'])));
    expect(
      events(b)
        .slice(0, 3)
        .every((f) => f['redelivered'] === true),
    ).toBe(true);
    expect(
      events(b)
        .slice(3)
        .some((f) => f['redelivered'] === true),
    ).toBe(false);
    b.close();
  });

  it('connection.drain: idle conversations move at once; one with unacknowledged deliveries moves once they are acked', async () => {
    const agent = await createTestAgent(server, owner);
    const a = await shared(agent);
    await send(agent, 'busy', 1);
    await send(agent, 'idle', 1);
    await received([a], 2);
    ack(
      a,
      events(a).filter((f) => convOf(f) === 'idle'),
    );
    const b = await shared(agent);
    a.send({ type: SCALE_FRAMES.drain });
    await a.settle();
    await send(agent, 'idle', 1, 1);
    await send(agent, 'busy', 1, 1);
    // The idle conversation moved to b; the busy one waits for a's ack (head-of-line: after it).
    await received([a, b], 3);
    expect(events(b).map(convOf)).toEqual(['idle']);
    ack(
      a,
      events(a).filter((f) => convOf(f) === 'busy'),
    );
    await received([a, b], 4);
    expect(events(b).map(convOf)).toEqual(['idle', 'busy']);
    expect(events(a)).toHaveLength(2);
    a.close();
    b.close();
  });

  it('the 11th sharing socket gets auth.error too_many_connections, close 4014 (TRANSPORT_CONNECTION_LIMIT)', async () => {
    const agent = await createTestAgent(server, owner);
    const probes: WsProbe[] = [];
    for (let i = 0; i < 10; i++) probes.push(await shared(agent));
    const { probe, answer } = await agentSocket(server, agent, { share: true, ack: true });
    expect(answer).toEqual({ type: 'auth.error', reason: 'too_many_connections' });
    const closed = await probe.waitClosed();
    expect(closed.code).toBe(WS_CLOSE_CODES.TOO_MANY_CONNECTIONS);
    expect(
      fatalError({
        closeCode: closed.code,
        authError: 'too_many_connections',
        sessionInvalidated: false,
        closeReason: '',
      }).code,
    ).toBe('TRANSPORT_CONNECTION_LIMIT');
    expect(probes.every((p) => p.isOpen)).toBe(true);
    for (const p of probes) p.close();
  });

  it('a socket that does not share replaces the sharing ones (close 4012, TRANSPORT_REPLACED), and the other way round', async () => {
    const agent = await createTestAgent(server, owner);
    const a = await shared(agent);
    const { probe: solo, answer } = await agentSocket(server, agent, { ack: true });
    expect(answer).toMatchObject({ type: 'auth.ok' });
    expect(answer['share']).toBeUndefined();
    const closed = await a.waitClosed();
    expect(closed.code).toBe(WS_CLOSE_CODES.REPLACED);
    expect(
      fatalError({ closeCode: closed.code, authError: undefined, sessionInvalidated: false, closeReason: '' })
        .code,
    ).toBe('TRANSPORT_REPLACED');
    const again = await shared(agent);
    expect((await solo.waitClosed()).code).toBe(WS_CLOSE_CODES.REPLACED);
    again.close();
  });
});
