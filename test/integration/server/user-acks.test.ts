/**
 * Acknowledged delivery on user WebSockets (gap decision, docs/user-client.md
 * "Gap decisions"): `ack: true` in `auth`, the terms in `auth.ok`, frames fed
 * from the inbox with `delivery_id`, and what a device did not acknowledge
 * sent again first on its next connection, in order; a connection without
 * acks works as before.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import {
  addAgent,
  createTestAgent,
  createTestUser,
  sealAs,
  startAgentServer,
  type TestAgent,
  type TestUser,
} from '../../helpers/server-agents.js';
import { call } from '../../helpers/server-http.js';
import { WsProbe, type Frame } from '../../helpers/server-ws.js';

let server: ReferenceServer;
let user: TestUser;
let agent: TestAgent;
let conversationId: string;

beforeAll(async () => {
  server = await startAgentServer();
});
afterAll(() => server.close());
beforeEach(async () => {
  user = await createTestUser(server);
  agent = await createTestAgent(server, user);
  conversationId = await addAgent(server, user, agent.agentId);
});

async function agentSends(text: string): Promise<number> {
  const wire = sealAs(
    { id: agent.agentId, keys: agent.keys },
    [
      { id: user.userId, keys: user.keys },
      { id: agent.agentId, keys: agent.keys },
    ],
    conversationId,
    { type: 'text', text },
  );
  const res = await call(server, 'POST', `/agents/${agent.agentId}/messages`, {
    token: agent.token,
    json: { conversation_id: conversationId, wire_envelope: wire },
  });
  expect(res.status, res.text).toBe(201);
  return Number(res.data['seq']);
}

async function userSocket(ack: boolean, token = user.accessToken): Promise<{ probe: WsProbe; ok: Frame }> {
  const probe = await WsProbe.open(server.wsUrl);
  probe.send({ type: 'auth', access_token: token, ...(ack ? { ack: true } : {}) });
  return { probe, ok: await probe.next() };
}

async function closed(probe: WsProbe): Promise<void> {
  probe.close();
  await probe.waitClosed();
}

describe('user WebSocket: acknowledged delivery', () => {
  it('auth with ack: true gets the terms in auth.ok; without, a plain auth.ok', async () => {
    const withAcks = await userSocket(true);
    expect(withAcks.ok).toEqual({ type: 'auth.ok', ack: { window: 256, timeout_ms: 30_000 } });
    const without = await userSocket(false);
    expect(without.ok).toEqual({ type: 'auth.ok' });
    await closed(withAcks.probe);
    await closed(without.probe);
  });

  it('frames carry delivery_id; what was not acknowledged comes again first, then what was missed, in order', async () => {
    const first = await userSocket(true);
    const s1 = await agentSends('one');
    const s2 = await agentSends('two');
    const f1 = await first.probe.next();
    const f2 = await first.probe.next();
    expect([f1, f2].map((f) => [f.type, f['delivery_id'], f['seq']])).toEqual([
      ['message.new', String(s1), s1],
      ['message.new', String(s2), s2],
    ]);
    first.probe.send({ type: 'ack', delivery_ids: [String(s1)] });
    await first.probe.settle();
    await closed(first.probe);

    const s3 = await agentSends('three'); // nobody connected
    const second = await userSocket(true);
    const again = [await second.probe.next(), await second.probe.next()];
    expect(again.map((f) => f['delivery_id'])).toEqual([String(s2), String(s3)]);
    second.probe.send({ type: 'ack', delivery_ids: [String(s3), String(s2)] });
    await second.probe.settle();
    await closed(second.probe);

    const third = await userSocket(true);
    const s4 = await agentSends('four');
    const next = await third.probe.next();
    expect(next['delivery_id']).toBe(String(s4));
    await third.probe.settle();
    expect(third.probe.frames).toHaveLength(2); // auth.ok and 'four' only
    await closed(third.probe);
  });

  it('each device has its own cursor: what one acknowledged, another still gets', async () => {
    const other = await server.control.accessToken(user.userId, { deviceId: 'second-device' });
    const a = await userSocket(true);
    const b = await userSocket(true, other.accessToken);
    const seq = await agentSends('both');
    expect((await a.probe.next())['delivery_id']).toBe(String(seq));
    expect((await b.probe.next())['delivery_id']).toBe(String(seq));
    a.probe.send({ type: 'ack', delivery_ids: [String(seq)] });
    await a.probe.settle();
    await closed(a.probe);
    await closed(b.probe);
    const a2 = await userSocket(true);
    const b2 = await userSocket(true, other.accessToken);
    expect((await b2.probe.next())['delivery_id']).toBe(String(seq));
    await a2.probe.settle();
    expect(a2.probe.frames).toHaveLength(1); // auth.ok only
    await closed(a2.probe);
    await closed(b2.probe);
  });

  it('a connection without acks gets live pushes without delivery_id, and nothing it missed', async () => {
    const { probe } = await userSocket(false);
    await agentSends('live');
    const live = await probe.next();
    expect(live['type']).toBe('message.new');
    expect(live).not.toHaveProperty('delivery_id');
    await closed(probe);
    await agentSends('missed');
    const again = await userSocket(false);
    await again.probe.settle();
    expect(again.probe.frames).toEqual([{ type: 'auth.ok' }]);
    await closed(again.probe);
  });

  it('an ack frame on a connection without acks, or a malformed one, is refused with an error frame', async () => {
    const plain = await userSocket(false);
    plain.probe.send({ type: 'ack', delivery_ids: ['1'] });
    expect(await plain.probe.next()).toMatchObject({
      type: 'error',
      error: { code: 'VALIDATION_ERROR', params: { reason: 'ack_not_negotiated' } },
    });
    const acking = await userSocket(true);
    acking.probe.send({ type: 'ack', delivery_ids: [] });
    expect(await acking.probe.next()).toMatchObject({
      type: 'error',
      error: { code: 'VALIDATION_ERROR', params: { reason: 'invalid_frame', min: 1, max: 1000 } },
    });
    await closed(plain.probe);
    await closed(acking.probe);
  });

  it('the window holds at most 256 unacknowledged; an ack lets the next through', async () => {
    const { probe } = await userSocket(true);
    const seqs: number[] = [];
    for (let i = 0; i < 258; i++) {
      seqs.push(await agentSends(`m${i}`));
      if ((i + 1) % 5 === 0) server.advanceTime(1_000); // the agent's 5 messages per second
    }
    for (let i = 0; i < 256; i++) await probe.next();
    await probe.settle();
    expect(probe.frames).toHaveLength(257);
    probe.send({ type: 'ack', delivery_ids: [String(seqs[0])] });
    expect((await probe.next())['delivery_id']).toBe(String(seqs[256]));
    await probe.settle();
    expect(probe.frames).toHaveLength(258);
    await closed(probe);
  });
});
