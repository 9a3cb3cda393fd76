import { describe, expect, it } from 'vitest';
import type { AmsError } from '../../../../packages/sdk/src/core/errors/index.js';
import type { DecryptFailure } from '../../../../packages/sdk/src/agent/events.js';
import { createPipelineReceiver } from '../../../../packages/sdk/src/agent/pipeline/webhook-bridge.js';
import { silentLogger } from '../../../../packages/sdk/src/core/logger.js';
import { generateKeys } from '../../../../packages/sdk/src/crypto/index.js';
import { createWebhookSigner } from '../../../../packages/sdk/src/webhook/index.js';
import { createHarness, deliveryId, type Harness } from '../../../helpers/agent-pipeline.js';
import { recordingLogger } from '../../../helpers/agent-world.js';

const SECRET = 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA==';
const signer = createWebhookSigner({ secret: SECRET });

function setup(h: Harness, closing = { value: false }) {
  const bridge = createPipelineReceiver({
    pipeline: h.pipeline,
    secret: SECRET,
    dedup: h.store,
    clock: h.clock,
    logger: silentLogger,
    claimLeaseMs: 60_000,
    closing: () => closing.value,
  });
  const deliver = async (wire: string, id = deliveryId()) => {
    const body = JSON.stringify({
      type: 'message.new',
      version: 'v1',
      wire_envelope: wire,
      metadata: {
        conversation_id: 'conv-1',
        sender_id: 'user-1',
        created_at: new Date(h.clock.now()).toISOString(),
      },
    });
    const { headers } = await signer.sign({
      timestamp: Math.floor(h.clock.now() / 1000),
      deliveryId: id,
      body,
    });
    return bridge.receiver.handle({ body, headers });
  };
  return { bridge, deliver };
}

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('webhook bridge', () => {
  it('runs the pipeline: handled → 200 processed; the same message again under a new id → 200, skipped', async () => {
    const h = createHarness();
    const { deliver } = setup(h);
    const texts: string[] = [];
    h.emitter.on('message.new', (m) => void texts.push(m.text ?? ''));
    const wire = h.sealFrom({ type: 'text', text: 'hook' });
    const first = await deliver(wire);
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toMatchObject({ data: { status: 'processed' } });
    expect((await deliver(wire)).status).toBe(200);
    expect(texts).toEqual(['hook']);
    expect(h.pipeline.stats()).toMatchObject({ received: 2, handled: 1, duplicates: 1 });
  });

  it('a decrypt failure is acknowledged (200 decrypt_failed) and reported as webhook transport', async () => {
    const h = createHarness();
    const { deliver } = setup(h);
    const failures: DecryptFailure[] = [];
    h.emitter.on('decryptFailure', (f) => void failures.push(f));
    const res = await deliver(
      h.sealFrom({ type: 'text', text: 'x' }, { to: generateKeys().encryption.publicKey }),
    );
    expect(JSON.parse(res.body)).toMatchObject({ data: { status: 'decrypt_failed' } });
    expect(failures.map((f) => [f.transport, f.reason])).toEqual([['webhook', 'no_wrap']]);
    expect(h.pipeline.stats().decryptFailures).toBe(1);
  });

  it('a handler error is reported and acknowledged: later deliveries are not held behind it', async () => {
    const h = createHarness();
    const { deliver } = setup(h);
    const errors: AmsError[] = [];
    h.emitter.on('error', (e) => void errors.push(e));
    h.emitter.on('message.new', () => {
      throw new Error('bug');
    });
    const res = await deliver(h.sealFrom({ type: 'text', text: 'x' }));
    expect(res.status).toBe(200);
    expect(errors.map((e) => e.code)).toEqual(['HANDLER_FAILED']);
  });

  it('a failing sender-key lookup answers 500 (retried), reported once as an error', async () => {
    const h = createHarness();
    const { deliver } = setup(h);
    const errors: AmsError[] = [];
    h.emitter.on('error', (e) => void errors.push(e));
    h.failLookups = Object.assign(new Error('network down'), { code: 'ECONNRESET' });
    const id = deliveryId();
    const wire = h.sealFrom({ type: 'text', text: 'x' });
    expect((await deliver(wire, id)).status).toBe(500);
    expect(errors).toHaveLength(1);
    h.failLookups = undefined;
    expect((await deliver(wire, id)).status).toBe(200);
  });

  it('bad signatures are rejected and counted; while closing every request gets 503 + Retry-After', async () => {
    const h = createHarness();
    const closing = { value: false };
    const { bridge, deliver } = setup(h, closing);
    const forged = await bridge.receiver.handle({
      body: '{}',
      headers: {
        'x-service-signature': '0'.repeat(64),
        'x-service-timestamp': '1',
        'x-service-delivery-id': 'a',
      },
    });
    expect(forged.status).toBeGreaterThanOrEqual(400);
    expect(h.pipeline.stats().rejected).toBe(1);
    closing.value = true;
    const res = await deliver(h.sealFrom({ type: 'text', text: 'x' }));
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('30');
    expect(h.pipeline.stats().received).toBe(0);
  });

  it('a delivery abandoned by the close timeout answers 500 and its claims are released for the retry', async () => {
    const h = createHarness({ concurrency: 1 });
    const { bridge, deliver } = setup(h);
    const g = gate();
    const texts: string[] = [];
    h.emitter.on('message.new', async (m) => {
      texts.push(m.text ?? '');
      if (m.text === 'slow') await g.promise;
    });
    const slow = deliver(h.sealFrom({ type: 'text', text: 'slow' }));
    for (let i = 0; i < 400 && texts.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    const waitingId = deliveryId();
    const waitingWire = h.sealFrom({ type: 'text', text: 'waiting' });
    const waiting = deliver(waitingWire, waitingId);
    for (let i = 0; i < 400 && h.pipeline.stats().queued < 1; i++) await new Promise((r) => setTimeout(r, 5));
    expect(h.pipeline.stats()).toMatchObject({ running: 1, queued: 1 });
    const drained = h.pipeline.drain(1_000);
    h.clock.advance(1_000);
    expect(await drained).toEqual({ drained: false, abandoned: 1 });
    expect((await waiting).status).toBe(500);
    g.open();
    expect((await slow).status).toBe(200);
    await bridge.idle();
    expect((await deliver(waitingWire, waitingId)).status).toBe(200);
    expect(texts).toEqual(['slow', 'waiting']);
  });
});

describe('webhook bridge: refused requests are loud', () => {
  const OTHER = 'b3RoZXItb3RoZXItb3RoZXItb3RoZXItb3RoZXItb3RoZXI=';

  it('a wrong secret: error listeners get every refusal; the log says what to check once, then a count per minute', async () => {
    const h = createHarness();
    const log = recordingLogger();
    const bridge = createPipelineReceiver({
      pipeline: h.pipeline,
      secret: SECRET,
      dedup: h.store,
      clock: h.clock,
      logger: log,
      claimLeaseMs: 60_000,
      closing: () => false,
    });
    const errors: AmsError[] = [];
    h.emitter.on('error', (e) => void errors.push(e));
    const wrong = createWebhookSigner({ secret: OTHER });
    const post = async () => {
      const body = JSON.stringify({ type: 'message.new', version: 'v1', wire_envelope: 'AA', metadata: {} });
      const { headers } = await wrong.sign({
        timestamp: Math.floor(h.clock.now() / 1000),
        deliveryId: deliveryId(),
        body,
      });
      return bridge.receiver.handle({ body, headers });
    };
    expect((await post()).status).toBe(401);
    for (let i = 0; i < 5; i++) await post();
    expect(errors.map((e) => e.code)).toEqual(Array(6).fill('WEBHOOK_SIGNATURE_INVALID'));
    const errorLines = () => log.lines.filter((l) => l.startsWith('error '));
    expect(errorLines()).toHaveLength(1);
    expect(errorLines()[0]).toContain('check AMS_WEBHOOK_SECRET: the service signed with another secret');
    h.clock.advance(60_000);
    await post();
    expect(errorLines()).toHaveLength(2);
    expect(errorLines()[1]).toContain('6 webhook deliveries refused (WEBHOOK_SIGNATURE_INVALID)');
    expect(h.pipeline.stats().rejected).toBe(7);
    expect(log.lines.join('\n')).not.toContain(SECRET);
  });

  it('without an error listener the refusal is still logged at error level (never silent)', async () => {
    const h = createHarness();
    const log = recordingLogger();
    const bridge = createPipelineReceiver({
      pipeline: h.pipeline,
      secret: SECRET,
      dedup: h.store,
      clock: h.clock,
      logger: log,
      claimLeaseMs: 60_000,
      closing: () => false,
    });
    const res = await bridge.receiver.handle({ body: '{}', headers: {} });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(log.lines.filter((l) => l.startsWith('error '))).toHaveLength(1);
  });
});
