/**
 * The delivery engine against a real local receiver over HTTP (undici sender),
 * on a virtual clock: the whole retry schedule to the second, the receiver
 * response table, signatures checked with the SDK's own verifier, `ref`
 * deliveries and timeouts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../packages/sdk/src/core/clock.js';
import { DeliveryLogEntrySchema } from '../../../packages/sdk/src/core/protocol/delivery-log.js';
import { isUuidV7 } from '../../../packages/sdk/src/core/protocol/primitives.js';
import {
  createDeliveryEngine,
  type ReferenceDeliveryEngine,
} from '../../../packages/dev/src/server/delivery/index.js';
import type { OutboundEvent } from '../../../packages/dev/src/server/delivery/types.js';
import { createWebhookVerifier, verifyWebhook } from '../../../packages/sdk/src/webhook/index.js';
import { answer, startScriptedReceiver, type ScriptedReceiver } from '../../helpers/server-receiver.js';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const AGENT = '0195523b-0000-4000-8000-0000000000aa';
const SECRET = 'dGhpcy1pcy1hLXdlYmhvb2stc2VjcmV0LW9mLTMyYnk=';

function event(n: number, wireEnvelope = 'AAECAwQFBgc='): OutboundEvent {
  return {
    type: 'message.new',
    wireEnvelope,
    metadata: { conversation_id: `conv_${n}`, sender_id: 'user_1', created_at: '2026-03-01T11:59:59.123Z' },
  };
}

let clock: ManualClock;
let receiver: ScriptedReceiver;
let engine: ReferenceDeliveryEngine;
let lines: { message: string; fields: Readonly<Record<string, unknown>> | undefined }[];

function start(options: { webhookTimeoutMs?: number; agents?: readonly string[] } = {}): void {
  const agents = new Set(options.agents ?? [AGENT]);
  engine = createDeliveryEngine({
    clock,
    target: { mode: (id) => (agents.has(id) ? 'webhook' : undefined), sendWs: () => false },
    log: (message, fields) => lines.push({ message, fields }),
    ...(options.webhookTimeoutMs === undefined ? {} : { webhookTimeoutMs: options.webhookTimeoutMs }),
  });
  for (const id of agents) engine.setWebhook(id, { url: `${receiver.url}?agent=${id}`, secret: SECRET });
}

beforeEach(async () => {
  clock = new ManualClock(T0);
  receiver = await startScriptedReceiver();
  lines = [];
});

afterEach(async () => {
  await engine?.close();
  await receiver.close();
});

describe('webhook delivery over HTTP', () => {
  it('runs the whole retry schedule to the second, then marks the agent unreachable', async () => {
    start();
    receiver.setDefault(answer.status(503));
    const verifier = createWebhookVerifier({ secret: SECRET, clock });
    const verifyNew = async (from: number): Promise<void> => {
      // Verified on arrival, at the engine's "now", as a receiver would.
      for (const req of receiver.requests.slice(from)) {
        const verified = await verifier.verify({ body: req.body, headers: req.headers });
        expect(verified.agentId).toBe(AGENT);
      }
    };
    engine.enqueue(AGENT, event(1));
    await engine.idle();
    await verifyNew(0);
    const gaps = [30, 120, 480, 1920, 7200, 21600];
    for (const gap of gaps) {
      clock.advance(gap * 1000 - 1000);
      await engine.idle();
      const before = receiver.requests.length;
      clock.advance(1000);
      await engine.idle();
      expect(receiver.requests.length).toBe(before + 1);
      await verifyNew(before);
    }
    const times = receiver.requests.map((r) => Number(r.headers['x-service-timestamp']) - T0 / 1000);
    expect(times).toEqual([0, 0, 30, 150, 630, 2550, 9750, 31350]);
    const ids = new Set(receiver.requests.map((r) => r.headers['x-service-delivery-id']));
    expect(ids.size).toBe(1);
    expect(isUuidV7([...ids][0]!)).toBe(true);
    expect(engine.connectionStatus(AGENT)).toBe('unreachable');
    clock.advance(6 * 3_600_000);
    await engine.idle();
    expect(receiver.requests).toHaveLength(8);
    const [entry] = engine.logs(AGENT, 1);
    expect(DeliveryLogEntrySchema.parse(entry)).toMatchObject({
      final_status: 'unreachable',
      attempt_count: 8,
    });
  });

  it('follows the receiver response table', async () => {
    const cases = [
      { answer: answer.status(200), status: 'delivered', attempts: 1 },
      { answer: answer.status(201), status: 'delivered', attempts: 1 },
      { answer: answer.status(204), status: 'delivered', attempts: 1 },
      { answer: answer.status(400), status: 'failed', attempts: 1 },
      { answer: answer.status(401), status: 'failed', attempts: 1 },
      { answer: answer.status(403), status: 'failed', attempts: 1 },
      { answer: answer.status(404), status: 'failed', attempts: 1 },
      { answer: answer.status(410), status: 'failed', attempts: 1 },
      { answer: answer.status(500), status: 'delivered', attempts: 2 },
      { answer: answer.status(503), status: 'delivered', attempts: 2 },
      { answer: answer.destroy(), status: 'delivered', attempts: 2 },
    ] as const;
    const agents = cases.map((_, i) => `0195523b-0000-4000-8000-${String(i).padStart(12, '0')}`);
    start({ agents });
    for (const [i, c] of cases.entries()) {
      receiver.script(c.answer);
      engine.enqueue(agents[i]!, event(i));
      await engine.idle();
    }
    for (const [i, c] of cases.entries()) {
      const [entry] = engine.logs(agents[i]!, 1);
      expect(DeliveryLogEntrySchema.parse(entry), `case ${i}`).toMatchObject({
        final_status: c.status,
        attempt_count: c.attempts,
      });
      if (c.status === 'failed') expect(entry?.error_class).toBe('http_4xx');
    }
  });

  it('429 with Retry-After: the next attempt comes exactly that many seconds later', async () => {
    start();
    receiver.script(answer.status(429, { 'retry-after': '42' }));
    engine.enqueue(AGENT, event(2));
    await engine.idle();
    clock.advance(41_999);
    await engine.idle();
    expect(receiver.requests).toHaveLength(1);
    clock.advance(1);
    await engine.idle();
    const times = receiver.requests.map((r) => Number(r.headers['x-service-timestamp']) - T0 / 1000);
    expect(times).toEqual([0, 42]);
    expect(engine.logs(AGENT, 1)[0]).toMatchObject({ final_status: 'delivered', attempt_count: 2 });
  });

  it('sends exactly the receiver-contract headers and a delivery body the SDK verifies', async () => {
    start();
    engine.enqueue(AGENT, event(3));
    await engine.idle();
    const [req] = receiver.requests;
    const names = new Set(req!.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase()));
    names.delete('host');
    names.delete('connection');
    expect([...names].sort()).toEqual([
      'content-length',
      'content-type',
      'x-service-agent-id',
      'x-service-delivery-id',
      'x-service-signature',
      'x-service-timestamp',
    ]);
    expect(req!.headers['content-type']).toBe('application/json');
    expect(Number(req!.headers['content-length'])).toBe(req!.body.length);
    const verified = await verifyWebhook({ secret: SECRET, clock, body: req!.body, headers: req!.headers });
    expect(verified.delivery).toMatchObject({
      type: 'message.new',
      version: 'v1',
      wire_envelope: 'AAECAwQFBgc=',
      metadata: { conversation_id: 'conv_3', sender_id: 'user_1', created_at: '2026-03-01T11:59:59.123Z' },
    });
    expect(verified.timestamp).toBe(T0 / 1000);
  });

  it('delivers a 1.5 MB event by ref; the signature verifies and the object is the ciphertext', async () => {
    start();
    const ciphertext = Buffer.alloc(1_572_864);
    for (let i = 0; i < ciphertext.length; i++) ciphertext[i] = (i * 31) & 0xff;
    engine.enqueue(AGENT, event(4, ciphertext.toString('base64')));
    await engine.idle();
    const [req] = receiver.requests;
    const verified = await verifyWebhook({ secret: SECRET, clock, body: req!.body, headers: req!.headers });
    expect(verified.delivery.wire_envelope).toBeNull();
    const ref = verified.delivery.ref!;
    expect(ref).toMatchObject({
      type: 'r2',
      size: ciphertext.length,
      content_type: 'application/octet-stream',
    });
    const object = engine.getObject(ref.object_key);
    expect(object?.agentId).toBe(AGENT);
    expect(Buffer.from(object!.bytes).equals(ciphertext)).toBe(true);
  });

  it('a receiver that hangs past the timeout is a temporary failure, retried at once', async () => {
    start({ webhookTimeoutMs: 150 });
    receiver.script(answer.hang());
    engine.enqueue(AGENT, event(5));
    await engine.idle();
    expect(receiver.requests.map((r) => 'hang' in r.action)).toEqual([true, false]);
    expect(lines.find((l) => l.message === 'delivery.attempt_failed')?.fields?.['error_class']).toBe(
      'timeout',
    );
    expect(engine.logs(AGENT, 1)[0]).toMatchObject({ final_status: 'delivered', attempt_count: 2 });
  });

  it('the engine clock moving past the timeout while a receiver hangs is a timeout too', async () => {
    start();
    receiver.script(answer.hang());
    engine.enqueue(AGENT, event(6));
    await receiver.waitForRequests(1);
    clock.advance(10_000);
    await engine.idle();
    expect(receiver.requests).toHaveLength(2);
    expect(lines.find((l) => l.message === 'delivery.attempt_failed')?.fields?.['error_class']).toBe(
      'timeout',
    );
  });
});
