import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../packages/sdk/src/core/clock.js';
import { isConfigurationError } from '../../../../packages/sdk/src/core/errors/index.js';
import { WEBHOOK_RETRY_SCHEDULE_MS } from '../../../../packages/sdk/src/core/limits.js';
import { DeliveryLogEntrySchema } from '../../../../packages/sdk/src/core/protocol/delivery-log.js';
import { parseWsFrame } from '../../../../packages/sdk/src/core/protocol/ws-frames.js';
import {
  createDeliveryEngine,
  type ReferenceDeliveryEngine,
} from '../../../../packages/dev/src/server/delivery/index.js';
import type { OutboundEvent } from '../../../../packages/dev/src/server/delivery/types.js';
import { event, FakeSender, FakeTarget, SECRET, status } from './fakes.js';

const A1 = '0195523b-0000-4000-8000-000000000001';
const A2 = '0195523b-0000-4000-8000-000000000002';
const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const HOUR = 3_600_000;

interface Rig {
  clock: ManualClock;
  sender: FakeSender;
  target: FakeTarget;
  engine: ReferenceDeliveryEngine;
  expired: { agentId: string; events: readonly OutboundEvent[] }[];
}

function rig(mode: 'webhook' | 'websocket' = 'webhook', agentId = A1): Rig {
  const clock = new ManualClock(T0);
  const sender = new FakeSender();
  const target = new FakeTarget();
  target.modes.set(agentId, mode);
  const expired: Rig['expired'] = [];
  const engine = createDeliveryEngine({
    clock,
    target,
    sender,
    onExpired: (id, events) => expired.push({ agentId: id, events }),
  });
  if (mode === 'webhook') engine.setWebhook(agentId, { url: 'http://127.0.0.1:1/hook', secret: SECRET });
  return { clock, sender, target, engine, expired };
}

/** Timestamps (engine seconds) of every attempt so far. */
function attemptTimes(sender: FakeSender): number[] {
  return sender.sends.map((s) => Number(s.req.headers['x-service-timestamp']));
}

async function failUntilUnreachable(r: Rig, agentId = A1): Promise<void> {
  r.sender.fallback = status(503);
  await r.engine.idle();
  for (const delay of WEBHOOK_RETRY_SCHEDULE_MS.slice(1)) {
    r.clock.advance(delay);
    await r.engine.idle();
  }
  expect(r.engine.connectionStatus(agentId)).toBe('unreachable');
}

describe('delivery engine: agent connection status table', () => {
  it('ready → unreachable on the 8th failure of the schedule; delivery stops; new events wait', async () => {
    const r = rig();
    r.engine.enqueue(A1, event(1));
    await failUntilUnreachable(r);
    expect(r.sender.sends).toHaveLength(8);
    const offsets = attemptTimes(r.sender).map((t) => t - T0 / 1000);
    expect(offsets).toEqual([0, 0, 30, 150, 630, 2550, 9750, 31350]);
    const [entry] = r.engine.logs(A1, 10);
    expect(DeliveryLogEntrySchema.parse(entry)).toMatchObject({
      final_status: 'unreachable',
      attempt_count: 8,
      error_class: 'http_5xx',
    });
    r.engine.enqueue(A1, event(2));
    r.clock.advance(6 * HOUR);
    await r.engine.idle();
    expect(r.sender.sends).toHaveLength(8);
    expect(r.engine.pendingCount(A1)).toBe(2);
  });

  it('unreachable → ready by recover: the queue is flushed in order under the same delivery ids', async () => {
    const r = rig();
    r.engine.enqueue(A1, event(10));
    await failUntilUnreachable(r);
    const firstId = r.sender.deliveryIds[0];
    r.engine.enqueue(A1, event(11));
    r.engine.enqueue(A1, event(12));
    r.sender.fallback = status(200);
    expect(r.engine.recover(A1)).toEqual({ pendingCount: 3 });
    expect(r.engine.connectionStatus(A1)).toBe('ready');
    await r.engine.idle();
    const after = r.sender.bodies
      .slice(8)
      .map((b) => (b['metadata'] as { conversation_id: string }).conversation_id);
    expect(after).toEqual(['conv_10', 'conv_11', 'conv_12']);
    expect(r.sender.deliveryIds[8]).toBe(firstId);
    expect(r.engine.pendingCount(A1)).toBe(0);
    const logs = r.engine.logs(A1, 10);
    expect(logs.map((e) => e.final_status)).toEqual(['delivered', 'delivered', 'delivered']);
    expect(logs[2]).toMatchObject({ delivery_id: firstId, attempt_count: 9 });
  });

  it('unreachable for 24 h: the queue is emptied, senders are told, the status is unchanged', async () => {
    const r = rig();
    r.engine.enqueue(A1, event(20));
    await failUntilUnreachable(r);
    r.engine.enqueue(A1, event(21));
    r.clock.advance(24 * HOUR);
    await r.engine.idle();
    expect(r.engine.pendingCount(A1)).toBe(0);
    expect(r.engine.connectionStatus(A1)).toBe('unreachable');
    const dropped = r.expired.flatMap((e) => e.events.map((ev) => ev.metadata.conversation_id));
    expect(dropped).toEqual(['conv_20', 'conv_21']);
    expect(r.expired.every((e) => e.agentId === A1)).toBe(true);
    expect(r.sender.sends).toHaveLength(8);
    expect(r.engine.recover(A1)).toEqual({ pendingCount: 0 });
  });

  it('each event expires 24 h after it was queued, not all at once', async () => {
    const r = rig();
    r.engine.enqueue(A1, event(30));
    await failUntilUnreachable(r);
    r.clock.advance(10 * HOUR);
    r.engine.enqueue(A1, event(31));
    r.clock.advance(24 * HOUR - 10 * HOUR - 31_350_000 + 1_000);
    expect(r.expired.flatMap((e) => e.events.map((ev) => ev.metadata.conversation_id))).toEqual(['conv_30']);
    expect(r.engine.pendingCount(A1)).toBe(1);
    // conv_31 was queued 31 350 s + 10 h after T0: it has 67 350 s - 1 s left.
    r.clock.advance(67_350_000 - 1_001);
    expect(r.engine.pendingCount(A1)).toBe(1);
    r.clock.advance(1);
    expect(r.engine.pendingCount(A1)).toBe(0);
    expect(r.expired.map((e) => e.events.length)).toEqual([1, 1]);
  });
});

describe('delivery engine: receiver response table', () => {
  it.each([200, 201, 204])('%i is delivered after one attempt', async (code) => {
    const r = rig();
    r.sender.script(status(code));
    r.engine.enqueue(A1, event());
    await r.engine.idle();
    const [entry] = r.engine.logs(A1, 5);
    expect(DeliveryLogEntrySchema.parse(entry)).toMatchObject({
      final_status: 'delivered',
      attempt_count: 1,
    });
    expect(r.sender.sends).toHaveLength(1);
  });

  it.each([400, 401, 403, 404, 410, 413, 422])('%i is a permanent failure: no retry', async (code) => {
    const r = rig();
    r.sender.script(status(code));
    r.engine.enqueue(A1, event());
    r.engine.enqueue(A1, event());
    await r.engine.idle();
    r.clock.advance(24 * HOUR);
    await r.engine.idle();
    expect(r.sender.sends).toHaveLength(2);
    const logs = r.engine.logs(A1, 5);
    expect(DeliveryLogEntrySchema.parse(logs[1])).toMatchObject({
      final_status: 'failed',
      error_class: 'http_4xx',
    });
    expect(logs[0]?.final_status).toBe('delivered');
    expect(r.engine.connectionStatus(A1)).toBe('ready');
  });

  it.each([
    [status(500), 'http_5xx'],
    [status(502), 'http_5xx'],
    [status(503), 'http_5xx'],
    [{ kind: 'timeout' } as const, 'timeout'],
    [{ kind: 'network' } as const, 'network'],
    [status(302), 'http_3xx'],
    [status(202), 'http_2xx'],
    [status(429), 'http_429'],
  ])('%o is a temporary failure (%s): retried immediately, then 30 s later', async (result, errorClass) => {
    const r = rig();
    r.sender.script(result, result);
    const logs: { message: string; fields: Readonly<Record<string, unknown>> | undefined }[] = [];
    const engine = createDeliveryEngine({
      clock: r.clock,
      target: r.target,
      sender: r.sender,
      log: (message, fields) => logs.push({ message, fields }),
    });
    engine.setWebhook(A1, { url: 'http://127.0.0.1:1/hook', secret: SECRET });
    engine.enqueue(A1, event());
    await engine.idle();
    expect(attemptTimes(r.sender)).toEqual([T0 / 1000, T0 / 1000]);
    r.clock.advance(29_999);
    await engine.idle();
    expect(r.sender.sends).toHaveLength(2);
    r.clock.advance(1);
    await engine.idle();
    expect(r.sender.sends).toHaveLength(3);
    expect(engine.logs(A1, 5)[0]?.attempt_count).toBe(3);
    expect(
      logs.filter((l) => l.message === 'delivery.attempt_failed').map((l) => l.fields?.['error_class']),
    ).toEqual([errorClass, errorClass]);
  });

  it('429 with Retry-After waits exactly that long and does not advance the schedule', async () => {
    const r = rig();
    r.sender.script(status(429, '7'), status(429, '120'), status(500), status(200));
    r.engine.enqueue(A1, event());
    await r.engine.idle();
    r.clock.advance(6_999);
    await r.engine.idle();
    expect(r.sender.sends).toHaveLength(1);
    r.clock.advance(1);
    await r.engine.idle();
    r.clock.advance(120_000);
    await r.engine.idle();
    // 3rd attempt failed with 500: the first failure of the schedule → retried immediately.
    expect(attemptTimes(r.sender).map((t) => t - T0 / 1000)).toEqual([0, 7, 127, 127]);
    expect(r.engine.logs(A1, 1)[0]).toMatchObject({ final_status: 'delivered', attempt_count: 4 });
  });

  it('a receiver that always answers 429 never becomes unreachable; the event expires after 24 h', async () => {
    const r = rig();
    r.sender.fallback = status(429, '3600');
    r.engine.enqueue(A1, event(40));
    for (let h = 0; h < 24; h++) {
      await r.engine.idle();
      r.clock.advance(HOUR);
    }
    await r.engine.idle();
    expect(r.engine.connectionStatus(A1)).toBe('ready');
    expect(r.sender.sends).toHaveLength(24);
    expect(r.expired).toHaveLength(1);
    const [entry] = r.engine.logs(A1, 1);
    expect(DeliveryLogEntrySchema.parse(entry)).toMatchObject({
      final_status: 'failed',
      error_class: 'pending_expired',
      attempt_count: 24,
    });
  });
});

describe('delivery engine: ordering, headers and bodies', () => {
  it('one delivery in flight per agent, in order (head-of-line)', async () => {
    const r = rig();
    r.sender.script('held');
    r.engine.enqueue(A1, event(50));
    r.engine.enqueue(A1, event(51));
    await Promise.resolve();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(r.sender.sends).toHaveLength(1);
    r.sender.sends[0]!.release(status(200));
    await r.engine.idle();
    const order = r.sender.bodies.map((b) => (b['metadata'] as { conversation_id: string }).conversation_id);
    expect(order).toEqual(['conv_50', 'conv_51']);
  });

  it('agents are independent: one agent retrying does not hold up another', async () => {
    const r = rig();
    r.target.modes.set(A2, 'webhook');
    r.engine.setWebhook(A2, { url: 'http://127.0.0.1:2/hook', secret: SECRET });
    r.sender.script(status(500), status(500));
    r.engine.enqueue(A1, event());
    await r.engine.idle();
    r.engine.enqueue(A2, event());
    await r.engine.idle();
    expect(r.sender.sends.at(-1)?.req.url).toBe('http://127.0.0.1:2/hook');
    expect(r.engine.pendingCount(A2)).toBe(0);
    expect(r.engine.pendingCount(A1)).toBe(1);
  });

  it('sends exactly the receiver-contract headers; one delivery id on every retry', async () => {
    const r = rig();
    r.sender.script(status(500));
    r.engine.enqueue(A1, event());
    await r.engine.idle();
    const [a, b] = r.sender.sends;
    expect(Object.keys(a!.req.headers).sort()).toEqual([
      'content-length',
      'content-type',
      'x-service-agent-id',
      'x-service-delivery-id',
      'x-service-signature',
      'x-service-timestamp',
    ]);
    expect(a!.req.headers['content-length']).toBe(String(a!.req.body.length));
    expect(a!.req.headers['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(a!.req.headers['x-service-agent-id']).toBe(A1);
    expect(b!.req.headers['x-service-delivery-id']).toBe(a!.req.headers['x-service-delivery-id']);
    expect(r.sender.bodies[0]).toEqual({
      type: 'message.new',
      version: 'v1',
      wire_envelope: 'AAECAwQ=',
      metadata: expect.objectContaining({ created_at: '2026-03-01T12:00:00.000Z' }) as unknown,
    });
  });

  it('a 1.5 MB envelope travels as a ref; the object holds the ciphertext for the agent', async () => {
    const r = rig();
    const ciphertext = new Uint8Array(1_572_864).map((_, i) => i % 251);
    r.engine.enqueue(A1, event(60, 'message.new', Buffer.from(ciphertext).toString('base64')));
    await r.engine.idle();
    const body = r.sender.bodies[0]!;
    expect(r.sender.sends[0]!.req.body.length).toBeLessThan(1_048_576);
    expect(body['wire_envelope']).toBeNull();
    const ref = body['ref'] as { type: string; object_key: string; size: number; content_type: string };
    expect(ref).toMatchObject({
      type: 'r2',
      size: ciphertext.length,
      content_type: 'application/octet-stream',
    });
    expect(ref.object_key).toMatch(/^obj_[A-Za-z0-9_-]{43}$/);
    const object = r.engine.getObject(ref.object_key);
    expect(object?.agentId).toBe(A1);
    expect(Buffer.from(object!.bytes).equals(Buffer.from(ciphertext))).toBe(true);
    r.clock.advance(24 * HOUR + 1);
    expect(r.engine.getObject(ref.object_key)).toBeUndefined();
  });

  it('setWebhook takes effect at once: the attempt in flight finishes, the next uses the new URL', async () => {
    const r = rig();
    r.sender.script('held');
    r.engine.enqueue(A1, event());
    await new Promise((resolve) => setTimeout(resolve, 5));
    r.engine.setWebhook(A1, { url: 'http://127.0.0.1:3/new', secret: SECRET });
    expect(r.engine.getWebhook(A1)?.url).toBe('http://127.0.0.1:3/new');
    r.sender.sends[0]!.release(status(500));
    await r.engine.idle();
    expect(r.sender.sends.map((s) => s.req.url)).toEqual([
      'http://127.0.0.1:1/hook',
      'http://127.0.0.1:3/new',
    ]);
  });

  it('an unknown agent’s event is dropped and logged; a bad secret is a ConfigurationError', () => {
    const r = rig();
    const lines: string[] = [];
    const engine = createDeliveryEngine({
      clock: r.clock,
      target: r.target,
      sender: r.sender,
      log: (m) => lines.push(m),
    });
    engine.enqueue('nobody', event());
    expect(engine.pendingCount('nobody')).toBe(0);
    expect(lines).toEqual(['delivery.dropped']);
    let thrown: unknown;
    try {
      engine.setWebhook(A1, { url: 'http://x', secret: 'short' });
    } catch (err) {
      thrown = err;
    }
    expect(isConfigurationError(thrown)).toBe(true);
    expect(String((thrown as Error).message)).not.toContain('short');
  });
});

describe('delivery engine: WebSocket path', () => {
  it('sends the body plus delivery_id; waits while no socket is open; flushes in order on connect', async () => {
    const r = rig('websocket');
    r.engine.enqueue(A1, event(70));
    r.engine.enqueue(A1, event(71, 'relation.established'));
    expect(r.engine.pendingCount(A1)).toBe(2);
    r.target.open.add(A1);
    r.engine.onAgentConnected(A1);
    expect(r.engine.pendingCount(A1)).toBe(0);
    const frames = r.target.frames.map((f) => parseWsFrame(JSON.stringify(f.frame)));
    expect(frames.map((f) => f.kind)).toEqual(['event', 'event']);
    expect(r.target.frames.map((f) => f.frame['type'])).toEqual(['message.new', 'relation.established']);
    const first = r.target.frames[0]!.frame;
    expect(first['delivery_id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(first).toMatchObject({ version: 'v1', wire_envelope: 'AAECAwQ=' });
    const logs = r.engine.logs(A1, 5);
    expect(logs.map((e) => DeliveryLogEntrySchema.parse(e).final_status)).toEqual(['delivered', 'delivered']);
    expect(logs[1]?.delivery_id).toBe(first['delivery_id']);
  });

  it('an oversize event goes to the WebSocket as a ref too', () => {
    const r = rig('websocket');
    r.target.open.add(A1);
    r.engine.enqueue(A1, event(72, 'message.new', Buffer.alloc(1_100_000, 7).toString('base64')));
    const frame = r.target.frames[0]!.frame;
    expect(frame['wire_envelope']).toBeNull();
    expect(parseWsFrame(JSON.stringify(frame)).kind).toBe('event');
  });

  it('removing the webhook moves a waiting retry to the WebSocket at once', async () => {
    const r = rig();
    r.sender.script(status(500), status(500));
    r.engine.enqueue(A1, event(73));
    await r.engine.idle();
    r.target.modes.set(A1, 'websocket');
    r.target.open.add(A1);
    r.engine.setWebhook(A1, null);
    expect(r.target.frames).toHaveLength(1);
    expect(r.engine.pendingCount(A1)).toBe(0);
  });
});

describe('delivery engine: logs, forgetting and shutdown', () => {
  it('keeps log entries 30 days, newest first, at most `limit`', async () => {
    const r = rig();
    for (let i = 0; i < 3; i++) {
      r.engine.enqueue(A1, event(80 + i));
      await r.engine.idle();
      r.clock.advance(HOUR);
    }
    const logs = r.engine.logs(A1, 2);
    expect(logs).toHaveLength(2);
    expect(Date.parse(logs[0]!.created_at)).toBeGreaterThan(Date.parse(logs[1]!.created_at));
    r.clock.advance(30 * 24 * HOUR - 3 * HOUR);
    expect(r.engine.logs(A1, 10)).toHaveLength(3);
    r.clock.advance(HOUR);
    expect(r.engine.logs(A1, 10)).toHaveLength(2);
    r.clock.advance(2 * HOUR);
    expect(r.engine.logs(A1, 10)).toHaveLength(0);
  });

  it('forgetAgent drops queue, logs, webhook and objects; close cancels in-flight attempts', async () => {
    const r = rig();
    r.sender.script(status(200), 'held');
    r.engine.enqueue(A1, event());
    await r.engine.idle();
    r.engine.forgetAgent(A1);
    expect(r.engine.logs(A1, 10)).toEqual([]);
    expect(r.engine.getWebhook(A1)).toBeUndefined();
    r.engine.setWebhook(A1, { url: 'http://127.0.0.1:1/hook', secret: SECRET });
    r.engine.enqueue(A1, event());
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(r.sender.sends).toHaveLength(2);
    await r.engine.close();
    expect(r.sender.closed).toBe(false);
    expect(r.engine.logs(A1, 10)).toEqual([]);
    r.engine.enqueue(A1, event());
    expect(r.sender.sends).toHaveLength(2);
  });

  it('validates its options', () => {
    const clock = new ManualClock(T0);
    const target = new FakeTarget();
    for (const webhookTimeoutMs of [0, -1, 1.5, 700_000]) {
      expect(() =>
        createDeliveryEngine({ clock, target, webhookTimeoutMs, sender: new FakeSender() }),
      ).toThrow(/webhookTimeoutMs/);
    }
  });
});
