import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../packages/sdk/src/core/clock.js';
import { CryptoError } from '../../../packages/sdk/src/core/errors/crypto-error.js';
import { TransportError } from '../../../packages/sdk/src/core/errors/transport-error.js';
import { LIMITS } from '../../../packages/sdk/src/core/limits.js';
import {
  createMemoryDedupStore,
  createWebhookReceiver,
  type DedupStore,
  type WebhookEvent,
  type WebhookReceiverEvent,
  type WebhookReceiverOptions,
  type WebhookResponse,
} from '../../../packages/sdk/src/webhook/index.js';
import {
  messageBody,
  newDeliveryId,
  refBody,
  SECRET,
  signedHeaders,
  T0_MS,
} from '../../fixtures/webhook/deliveries.js';

const TS = T0_MS / 1000;

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void } {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function setup<T = never>(options: Partial<WebhookReceiverOptions<T>> = {}) {
  const clock = new ManualClock(T0_MS);
  const events: WebhookReceiverEvent[] = [];
  const calls: WebhookEvent<T>[] = [];
  const receiver = createWebhookReceiver<T>({
    secret: SECRET,
    clock,
    handler: (e) => {
      calls.push(e);
    },
    onEvent: (e) => events.push(e),
    ...options,
  });
  return { clock, events, calls, receiver };
}

async function request(body: string, deliveryId = newDeliveryId(), secret = SECRET) {
  return { body, headers: await signedHeaders(body, { deliveryId, timestamp: TS, secret }), deliveryId };
}

function json(r: WebhookResponse): {
  data?: { status: string; delivery_id: string };
  error?: { code: string; i18n_key: string; message: string; params: Record<string, unknown> };
} {
  return JSON.parse(r.body) as never;
}

describe('webhook receiver', () => {
  it('answers 200 after the handler finished, with the delivery as payload when there is no open', async () => {
    const { receiver, calls, events } = setup();
    const req = await request(messageBody());
    const res = await receiver.handle(req);
    expect(res.status).toBe(200);
    expect(json(res).data).toEqual({ delivery_id: req.deliveryId, status: 'processed' });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.payload).toEqual(calls[0]!.delivery);
    expect(calls[0]).toMatchObject({
      deliveryId: req.deliveryId,
      type: 'message.new',
      timestamp: TS,
      secretIndex: 0,
    });
    expect(events.map((e) => e.type)).toEqual(['handled']);
  });

  it('answers a copy of a completed delivery with 200 without calling the handler, for 24 h', async () => {
    const { receiver, calls, clock } = setup();
    const req = await request(messageBody());
    await receiver.handle(req);
    const again = await receiver.handle({ ...req, receivedAtMs: T0_MS });
    expect(again.status).toBe(200);
    expect(json(again).data?.status).toBe('duplicate');
    expect(calls).toHaveLength(1);
    clock.advance(LIMITS.WEBHOOK_DEDUP_WINDOW_MS);
    const late = await request(messageBody(), req.deliveryId);
    const headers = await signedHeaders(late.body, {
      deliveryId: req.deliveryId,
      timestamp: clock.now() / 1000,
    });
    expect(json(await receiver.handle({ body: late.body, headers })).data?.status).toBe('processed');
    expect(calls).toHaveLength(2);
  });

  it('answers a concurrent copy with a retryable 429 + Retry-After, never a 4xx the service treats as final', async () => {
    const gate = deferred();
    let runs = 0;
    const { receiver } = setup({
      handler: async () => {
        runs++;
        await gate.promise;
      },
      inFlightRetryAfterSeconds: 7,
    });
    const req = await request(messageBody());
    const first = receiver.handle(req);
    await new Promise((r) => setImmediate(r));
    const copy = await receiver.handle(req);
    expect(copy.status).toBe(429);
    expect(copy.headers['retry-after']).toBe('7');
    expect(json(copy).error).toMatchObject({
      code: 'WEBHOOK_DELIVERY_IN_PROGRESS',
      params: { retry_after_ms: 7000 },
    });
    gate.resolve();
    expect((await first).status).toBe(200);
    expect(runs).toBe(1);
    expect(json(await receiver.handle(req)).data?.status).toBe('duplicate');
  });

  it('releases the claim when the handler throws (500), so the retry runs it again', async () => {
    let attempt = 0;
    const { receiver, events } = setup({
      handler: () => {
        if (attempt++ === 0) throw new Error('db down: password=hunter2');
      },
    });
    const req = await request(messageBody());
    const failed = await receiver.handle(req);
    expect(failed.status).toBe(500);
    expect(json(failed).error?.code).toBe('HANDLER_FAILED');
    expect(failed.body).not.toContain('hunter2');
    const handlerError = events.find((e) => e.type === 'handlerError');
    expect(handlerError).toMatchObject({ deliveryId: req.deliveryId, acknowledged: false });
    const retry = await receiver.handle(req);
    expect(retry.status).toBe(200);
    expect(attempt).toBe(2);
  });

  it('a concurrent copy of a delivery whose first attempt then fails is not lost', async () => {
    const gate = deferred();
    let runs = 0;
    const { receiver } = setup({
      handler: async () => {
        if (runs++ === 0) {
          await gate.promise;
          throw new Error('boom');
        }
      },
    });
    const req = await request(messageBody());
    const first = receiver.handle(req);
    await new Promise((r) => setImmediate(r));
    expect((await receiver.handle(req)).status).toBe(429);
    gate.resolve();
    expect((await first).status).toBe(500);
    expect((await receiver.handle(req)).status).toBe(200);
    expect(runs).toBe(2);
  });

  it('opens the envelope with the injected open and hands the result to the handler', async () => {
    const envelope = new Uint8Array([9, 8, 7, 0, 255]);
    const opened: Uint8Array[] = [];
    const { receiver, calls } = setup<{ text: string }>({
      open: (bytes, delivery) => {
        opened.push(bytes);
        expect(delivery.type).toBe('message.new');
        return Promise.resolve({ text: 'hello' });
      },
    });
    const res = await receiver.handle(await request(messageBody(envelope)));
    expect(res.status).toBe(200);
    expect(opened[0]).toEqual(envelope);
    expect(calls[0]!.payload).toEqual({ text: 'hello' });
  });

  it('acknowledges a decrypt failure with 200 and reports its reason and delivery id', async () => {
    const failures: unknown[] = [];
    let opens = 0;
    const { receiver, calls, events } = setup({
      open: () => {
        opens++;
        return Promise.reject(
          new CryptoError({ code: 'DECRYPT_FAILURE', reason: 'aead', message: 'AES-GCM tag mismatch' }),
        );
      },
      onDecryptFailure: (e) => failures.push(e),
    });
    const req = await request(messageBody());
    const res = await receiver.handle(req);
    expect(res.status).toBe(200);
    expect(json(res).data?.status).toBe('decrypt_failed');
    expect(calls).toHaveLength(0);
    expect(failures).toEqual([
      expect.objectContaining({ type: 'decryptFailure', deliveryId: req.deliveryId, reason: 'aead' }),
    ]);
    expect(events.filter((e) => e.type === 'decryptFailure')).toHaveLength(1);
    expect(json(await receiver.handle(req)).data?.status).toBe('duplicate');
    expect(opens).toBe(1);
  });

  it('retries (500) when open fails for another reason', async () => {
    const { receiver, events } = setup({ open: () => Promise.reject(new Error('key store locked')) });
    const res = await receiver.handle(await request(messageBody()));
    expect(res.status).toBe(500);
    expect(events.some((e) => e.type === 'handlerError')).toBe(true);
  });

  it('refuses an envelope that is not base64 with 400 after verifying', async () => {
    const { receiver } = setup({ open: () => Promise.resolve('x') });
    const body = messageBody(undefined, { wire_envelope: 'not base64!' });
    const res = await receiver.handle(await request(body));
    expect(res.status).toBe(400);
    expect(json(res).error?.code).toBe('WEBHOOK_PAYLOAD_INVALID');
  });

  it('fetches a ref before opening it', async () => {
    const cipher = new Uint8Array([1, 1, 2, 3, 5, 8]);
    const refs: unknown[] = [];
    const { receiver, calls } = setup<number>({
      fetchRef: (ref) => {
        refs.push(ref);
        return Promise.resolve(cipher);
      },
      open: (bytes) => Promise.resolve(bytes.length),
    });
    const ref = { object_key: 'k/1', size: 6, content_type: 'application/octet-stream' };
    const res = await receiver.handle(await request(refBody(ref)));
    expect(res.status).toBe(200);
    expect(refs).toEqual([{ type: 'r2', ...ref }]);
    expect(calls[0]!.payload).toBe(6);
  });

  it('answers a failed ref fetch with a retryable 502 and releases the claim', async () => {
    let fail = true;
    const { receiver, events } = setup({
      fetchRef: () =>
        fail
          ? Promise.reject(new TransportError({ code: 'TRANSPORT_NETWORK', message: 'socket hang up' }))
          : Promise.resolve(new Uint8Array(1)),
      open: () => Promise.resolve('ok'),
    });
    const req = await request(refBody({ object_key: 'k', size: 1, content_type: 'a/b' }));
    const res = await receiver.handle(req);
    expect(res.status).toBe(502);
    expect(events.some((e) => e.type === 'refFetchError')).toBe(true);
    fail = false;
    expect((await receiver.handle(req)).status).toBe(200);
  });

  it('answers a ref without a configured fetchRef with a retryable 500 configuration error', async () => {
    const { receiver, events } = setup({ open: () => Promise.resolve('ok') });
    const res = await receiver.handle(
      await request(refBody({ object_key: 'k', size: 1, content_type: 'a/b' })),
    );
    expect(res.status).toBe(500);
    expect(json(res).error?.code).toBe('CONFIGURATION_ERROR');
    expect(json(res).error?.message).toContain('fetchRef');
    expect(events.some((e) => e.type === 'configurationError')).toBe(true);
  });

  it('respondEarly answers 200 before the handler finishes; drain waits for it', async () => {
    const gate = deferred();
    let done = false;
    const { receiver, events } = setup({
      respondEarly: true,
      handler: async () => {
        await gate.promise;
        done = true;
        throw new Error('late failure');
      },
    });
    const req = await request(messageBody());
    const res = await receiver.handle(req);
    expect(res.status).toBe(200);
    expect(json(res).data?.status).toBe('accepted');
    expect(done).toBe(false);
    expect((await receiver.handle(req)).status).toBe(429); // still claimed while it runs
    gate.resolve();
    await receiver.drain();
    expect(done).toBe(true);
    expect(events.find((e) => e.type === 'handlerError')).toMatchObject({ acknowledged: true });
  });

  it('answers 503 with Retry-After when the store fails or is full of live claims', async () => {
    const broken: DedupStore = {
      claim: () => Promise.reject(new Error('redis down')),
      complete: () => undefined,
      release: () => undefined,
    };
    const { receiver, events } = setup({ dedup: broken });
    const res = await receiver.handle(await request(messageBody()));
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBeDefined();
    expect(events.find((e) => e.type === 'storeError')).toMatchObject({ operation: 'claim' });
    const clock = new ManualClock(T0_MS);
    const gate = deferred();
    const full = createWebhookReceiver({
      secret: SECRET,
      clock,
      dedup: createMemoryDedupStore({ clock, maxEntries: 1 }),
      handler: () => gate.promise,
    });
    const first = full.handle(await request(messageBody()));
    await new Promise((r) => setImmediate(r));
    expect((await full.handle(await request(messageBody()))).status).toBe(503);
    gate.resolve();
    await first;
  });

  it('answers 503 with Retry-After while the store recovers from a Redis that lost its keys, without running the handler', async () => {
    let ran = false;
    const { receiver, events } = setup({
      dedup: { claim: () => ({ status: 'recovering' }), complete: () => undefined, release: () => undefined },
      handler: () => void (ran = true),
    });
    const res = await receiver.handle(await request(messageBody()));
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBeDefined();
    expect(ran).toBe(false);
    expect(events.filter((e) => e.type === 'duplicate')).toEqual([]);
  });

  it('still answers 200 when recording completion fails, and reports it', async () => {
    const store = createMemoryDedupStore();
    const { receiver, events } = setup({
      dedup: {
        claim: (id, ms) => store.claim(id, ms),
        complete: () => Promise.reject(new Error('x')),
        release: () => undefined,
      },
    });
    expect((await receiver.handle(await request(messageBody()))).status).toBe(200);
    expect(events.find((e) => e.type === 'storeError')).toMatchObject({ operation: 'complete' });
  });

  it('refuses bad deliveries with the service error body shape and reports them', async () => {
    const { receiver, events } = setup();
    const req = await request(messageBody(), newDeliveryId(), 'another-secret-that-is-long-enough-32');
    const res = await receiver.handle(req);
    expect(res.status).toBe(401);
    expect(json(res).error).toEqual({
      code: 'WEBHOOK_SIGNATURE_INVALID',
      message: 'The webhook signature does not match.',
      i18n_key: 'errors.webhook_signature_invalid',
      params: {},
    });
    expect(events[0]).toMatchObject({ type: 'rejected' });
    const invalid = await receiver.handle(await request('{"type":"x"}'));
    expect(invalid.status).toBe(400);
    expect(json(invalid).error?.code).toBe('WEBHOOK_PAYLOAD_INVALID');
  });

  it('is not disturbed by listeners that throw', async () => {
    const { receiver } = setup({
      onEvent: () => {
        throw new Error('listener');
      },
    });
    expect((await receiver.handle(await request(messageBody()))).status).toBe(200);
  });

  it('refuses bad options at construction', () => {
    expect(() => createWebhookReceiver({ secret: SECRET, handler: 5 as never })).toThrow(/handler/);
    expect(() =>
      createWebhookReceiver({ secret: SECRET, handler: () => undefined, claimLeaseMs: 0 }),
    ).toThrow(/claimLeaseMs/);
    expect(() => createWebhookReceiver({ secret: 'short', handler: () => undefined })).toThrow(/secret/);
  });
});
