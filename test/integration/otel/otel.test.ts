/**
 * `agent-messaging-sdk/otel` against the reference server (#25, traces and
 * metrics): the span tree of one message, a redelivery, a decrypt failure
 * counted by reason, a 429 counted, and no content, key or token in any
 * exported attribute. One world (with the relay) for the whole file.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { context, ROOT_CONTEXT, SpanStatusCode, type Context, type ContextManager } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import { answer, createTestWorld, DROP, type TestWorld } from '../../../packages/dev/src/testing/index.js';
import { instrument, METRIC_NAMES } from '../../../packages/sdk/src/otel.js';
import type { DecryptFailure } from '../../../packages/sdk/src/index.js';

/** A context manager on AsyncLocalStorage (what @opentelemetry/context-async-hooks does), for the handler → send nesting. */
class AlsContextManager implements ContextManager {
  readonly #als = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.#als.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.#als.run(ctx, () => fn.call(thisArg, ...args));
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.#als.disable();
    return this;
  }
}

const MARKER = 'otel-marker-5517-plaintext';
let world: TestWorld;
const spans = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({
  exporter: metricExporter,
  exportIntervalMillis: 3_600_000,
});
const meterProvider = new MeterProvider({ readers: [reader] });
const decryptFailures: DecryptFailure[] = [];

beforeAll(async () => {
  context.setGlobalContextManager(new AlsContextManager());
  world = await createTestWorld({ relay: true, agent: { connect: false } });
  instrument(world.agent, { tracerProvider, meterProvider });
  world.agent.on('decryptFailure', (f) => void decryptFailures.push(f));
  world.agent.on('message.new', async (m) => {
    await m.reply(`echo: ${m.text ?? ''}`);
  });
  await world.agent.connect();
});
afterAll(async () => {
  await world.close();
  await meterProvider.shutdown();
  await tracerProvider.shutdown();
  context.disable();
});

/** Waits (on events the exporter already holds, polled) until `pick` finds something. */
async function until<T>(pick: () => T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 4_000;
  for (;;) {
    const found = pick();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The ended `receive message.new` span of the delivery whose handler saw `text`. */
function receiveOf(deliveryId: string): ReadableSpan | undefined {
  return spans
    .getFinishedSpans()
    .find((s) => s.name === 'receive message.new' && s.attributes['ams.delivery.id'] === deliveryId);
}

function childrenOf(root: ReadableSpan): ReadableSpan[] {
  return spans.getFinishedSpans().filter((s) => s.parentSpanContext?.spanId === root.spanContext().spanId);
}

async function metricPoints(
  name: string,
): Promise<{ attributes: Record<string, unknown>; value: unknown }[]> {
  await reader.forceFlush();
  const batches = metricExporter.getMetrics();
  const last = batches[batches.length - 1];
  const data: MetricData[] = last?.scopeMetrics.flatMap((s) => s.metrics) ?? [];
  return data
    .filter((m) => m.descriptor.name === name)
    .flatMap((m) => m.dataPoints.map((p) => ({ attributes: p.attributes, value: p.value })));
}

async function counted(name: string, match: Record<string, unknown>): Promise<number> {
  return (await metricPoints(name))
    .filter((p) => Object.entries(match).every(([k, v]) => p.attributes[k] === v))
    .reduce((sum, p) => sum + (p.value as number), 0);
}

describe('instrument(agent)', () => {
  it('one message is one trace: receive → open, handle (→ send), ack; deliveries and handler time recorded', async () => {
    await world.sendAsUser(`hello ${MARKER}`);
    const delivered = await world.waitForDelivery();
    await world.waitForReply({ kind: 'text' });
    const root = await until(() => receiveOf(delivered.deliveryId), 'the receive span');
    expect(root.parentSpanContext).toBeUndefined();
    expect(root.attributes).toMatchObject({
      'messaging.system': 'agent-messaging',
      'messaging.operation.type': 'receive',
      'ams.agent.id': world.agentId,
      'ams.conversation.id': world.conversationId,
      'ams.delivery.id': delivered.deliveryId,
      'ams.event.type': 'message.new',
      'ams.transport': 'websocket',
      'ams.redelivered': false,
      'ams.outcome': 'handled',
    });
    const children = childrenOf(root);
    expect(children.map((s) => s.name).sort()).toEqual([
      'ack message.new',
      'handle message.new',
      'open message.new',
    ]);
    for (const c of children) expect(c.spanContext().traceId).toBe(root.spanContext().traceId);
    const handle = children.find((s) => s.name === 'handle message.new')!;
    const send = spans.getFinishedSpans().find((s) => s.name === 'send');
    expect(send?.parentSpanContext?.spanId).toBe(handle.spanContext().spanId);
    expect(send?.attributes['ams.conversation.id']).toBe(world.conversationId);
    expect(await counted(METRIC_NAMES.deliveries, { 'ams.outcome': 'handled' })).toBeGreaterThanOrEqual(1);
    const durations = await metricPoints(METRIC_NAMES.handlerDuration);
    expect(durations.some((p) => (p.value as { count: number }).count >= 1)).toBe(true);
  });

  it('a delivery the relay lost comes again marked redelivered, and is counted', async () => {
    const relay = world.relay!;
    let lost = (): void => undefined;
    const dropped = new Promise<void>((resolve) => (lost = resolve));
    relay.onServerFrame = (frame) => {
      if ((frame as { type?: string }).type !== 'message.new') return frame;
      lost();
      return DROP;
    };
    await world.sendAsUser('are you there?');
    await dropped;
    relay.onServerFrame = undefined;
    relay.reset(); // the agent reconnects; the unacknowledged delivery is sent again
    const delivered = await world.waitForDelivery();
    await world.waitForReply({ kind: 'text' });
    const root = await until(() => receiveOf(delivered.deliveryId), 'the receive span');
    expect(root.attributes['ams.redelivered']).toBe(true);
    expect(
      await counted(METRIC_NAMES.redeliveries, { 'ams.event.type': 'message.new' }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('a frame the relay corrupted is a decrypt failure counted by its reason', async () => {
    const relay = world.relay!;
    relay.onServerFrame = (frame) => {
      const f = frame as { type?: string; wire_envelope?: string };
      if (f.type !== 'message.new' || typeof f.wire_envelope !== 'string') return frame;
      relay.onServerFrame = undefined;
      const bytes = Buffer.from(f.wire_envelope, 'base64');
      bytes[bytes.length - 40]! ^= 0xff; // inside the ciphertext
      return { ...f, wire_envelope: bytes.toString('base64') };
    };
    await world.sendAsUser('this one is tampered with');
    const failure = await until(() => decryptFailures[0], 'the decrypt failure');
    const reason = failure.reason ?? 'invalid_envelope';
    expect(await counted(METRIC_NAMES.decryptFailures, { 'ams.decrypt.reason': reason })).toBe(1);
    const root = await until(() => receiveOf(failure.deliveryId), 'the receive span');
    expect(root.attributes['ams.outcome']).toBe('skipped');
    const open = childrenOf(root).find((s) => s.name === 'open message.new');
    expect(open?.attributes['error.type']).toBe(failure.code);
  });

  it('a 429 of the service is counted (the send is retried and succeeds)', async () => {
    const relay = world.relay!;
    let refused = false;
    relay.onResponse = (method, path, json) => {
      if (refused || method !== 'POST' || !path.includes('/messages')) return json;
      refused = true;
      return answer(
        429,
        { error: { code: 'MESSAGE_RATE_LIMITED', message: 'Too many messages.' } },
        { 'retry-after': '0' },
      );
    };
    try {
      await world.agent.send(world.conversationId, 'after a 429');
    } finally {
      relay.onResponse = undefined;
    }
    expect(refused).toBe(true);
    expect((await world.waitForReply({ kind: 'text' })).text).toBe('after a 429');
    expect(await counted(METRIC_NAMES.rateLimited, { 'ams.rate_limit.code': 'MESSAGE_RATE_LIMITED' })).toBe(
      1,
    );
  });

  it('a stream span lasts until the stream is over: done, stopped, timed out, with its counts', async () => {
    const streamSpan = (streamId: string): ReadableSpan | undefined =>
      spans.getFinishedSpans().find((s) => s.name === 'stream' && s.attributes['ams.stream.id'] === streamId);
    const w = await world.agent.stream(world.conversationId);
    await w.step({ id: 'plan', title: `step ${MARKER}`, status: 'running' });
    await w.write(`streamed ${MARKER}`);
    expect(spans.getFinishedSpans().filter((s) => s.name === 'stream')).toEqual([]); // still open
    const summary = await w.end();
    await world.waitForReply({ kind: 'stream' });
    const done = streamSpan(w.streamId);
    expect(done?.attributes).toMatchObject({
      'messaging.operation.type': 'create',
      'ams.conversation.id': world.conversationId,
      'ams.stream.outcome': 'done',
      'ams.stream.deltas': summary.deltas,
      'ams.stream.parts': 1,
    });
    expect(done?.status.code).not.toBe(SpanStatusCode.ERROR);

    const stopped = await world.agent.stream(world.conversationId);
    await stopped.write('half a thought');
    await stopped.abort(`changed my mind ${MARKER}`);
    await world.waitForReply({ kind: 'stream' });
    expect(streamSpan(stopped.streamId)?.attributes).toMatchObject({
      'ams.stream.outcome': 'stopped',
      'ams.stream.parts': 0,
    });

    // The service times a stream out while nobody writes: its span ends then, as an error.
    const idle = await world.agent.stream(world.conversationId);
    await idle.write('and then nothing');
    // (The relay sends it to every socket: the user's client sees the stream fail too.)
    world.relay!.inject({ type: 'stream.error', stream_id: idle.streamId, reason: 'stream_timeout' });
    await world.waitForReply({ kind: 'stream' });
    const timedOut = await until(() => streamSpan(idle.streamId), 'the timed-out stream span');
    expect(timedOut.attributes).toMatchObject({
      'ams.stream.outcome': 'timed_out',
      'error.type': 'STREAM_TIMEOUT',
    });
    expect(timedOut.status.code).toBe(SpanStatusCode.ERROR);
    await expect(idle.end()).rejects.toMatchObject({ code: 'STREAM_TIMEOUT' });
  });

  it('a stream whose opening the service refuses: its span ends failed, with the service code', async () => {
    const other = await world.addAgent({ name: 'Other bot' });
    // A conversation of another agent: the service refuses to open a stream there.
    const refused = await world.agent.stream(other.conversationId).then(
      () => undefined,
      (error: unknown) => error as { code?: string },
    );
    expect(refused?.code).toBeTypeOf('string');
    const span = await until(
      () =>
        spans
          .getFinishedSpans()
          .find((s) => s.name === 'stream' && s.attributes['ams.conversation.id'] === other.conversationId),
      'the refused stream span',
    );
    expect(span.attributes).toMatchObject({ 'ams.stream.outcome': 'failed', 'error.type': refused!.code });
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('upload is a span of its own; the file message of an upload is a send under it', async () => {
    await world.agent.files.upload(world.conversationId, new TextEncoder().encode(`file ${MARKER}`), {
      name: 'note.txt',
      contentType: 'text/plain',
    });
    await world.waitForReply({ kind: 'file' });
    const upload = spans.getFinishedSpans().find((s) => s.name === 'upload');
    expect(upload?.attributes['ams.conversation.id']).toBe(world.conversationId);
    const sends = spans.getFinishedSpans().filter((s) => s.name === 'send');
    expect(sends.some((s) => s.parentSpanContext?.spanId === upload?.spanContext().spanId)).toBe(true);
  });

  it('a webhook delivery is a receive span with its open and handle children (the HTTP answer is the ack)', async () => {
    const hooked = await world.addAgent({ name: 'Webhook bot', mode: 'webhook' });
    const stop = instrument(hooked.agent, { tracerProvider, meterProvider });
    hooked.agent.on('message.new', async (m) => {
      await m.reply(`hooked: ${m.text ?? ''}`);
    });
    await world.sendAsUser(`by webhook ${MARKER}`, { conversationId: hooked.conversationId });
    const delivered = await world.waitForDelivery(undefined, { agent: hooked });
    await world.waitForReply({ kind: 'text', from: hooked });
    const root = await until(() => receiveOf(delivered.deliveryId), 'the webhook receive span');
    expect(root.attributes).toMatchObject({ 'ams.transport': 'webhook', 'ams.agent.id': hooked.agentId });
    const children = childrenOf(root);
    // In the order they ended: opened, then handled.
    expect(children.map((s) => s.name)).toEqual(['open message.new', 'handle message.new']);
    const [open] = children;
    expect(open!.attributes).toMatchObject({
      'messaging.operation.type': 'process',
      'ams.delivery.id': delivered.deliveryId,
    });
    expect(await counted(METRIC_NAMES.deliveries, { 'ams.transport': 'webhook' })).toBeGreaterThanOrEqual(1);

    // An oversize message comes by `ref`: its open span covers fetching the object (GET /r2/<key>,
    // through the relay) and opening it, then the handle span follows.
    const relay = world.relay!;
    const fetchesBefore = relay.records.filter(
      (r) => r.channel === 'http-request' && r.path.includes('/r2/'),
    );
    const big = `${MARKER} ${'x'.repeat(1_100_000)}`;
    const seen = new Promise<number>((resolve) =>
      hooked.agent.on('message.new', (m) => void (m.text?.startsWith(MARKER) && resolve(m.text.length))),
    );
    await world.sendAsUser(big, { conversationId: hooked.conversationId });
    expect(await seen).toBe(big.length);
    const byRef = await world.waitForDelivery(undefined, { agent: hooked });
    const refRoot = await until(() => receiveOf(byRef.deliveryId), 'the receive span of the ref delivery');
    const fetches = relay.records.filter((r) => r.channel === 'http-request' && r.path.includes('/r2/'));
    expect(fetches.length).toBe(fetchesBefore.length + 1);
    const refChildren = childrenOf(refRoot);
    expect(refChildren.map((s) => s.name)).toEqual(['open message.new', 'handle message.new']);
    const [refOpen, refHandle] = refChildren;
    expect(refOpen!.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(refRoot.attributes['ams.outcome']).toBe('handled');
    const ns = (t: readonly [number, number]): bigint => BigInt(t[0]) * 1_000_000_000n + BigInt(t[1]);
    expect(ns(refHandle!.startTime) >= ns(refOpen!.endTime)).toBe(true);
    for (const span of [refRoot, ...refChildren])
      expect(Object.values(span.attributes).map(String).join('\n')).not.toContain(MARKER);

    // An envelope tampered with on its way in (the user's request, through the relay): its open
    // span fails with the decrypt failure's code, and the delivery is skipped.
    const failures: DecryptFailure[] = [];
    hooked.agent.on('decryptFailure', (f) => void failures.push(f));
    relay.onRequest = (method, path, json) => {
      const body = json as { wire_envelope?: unknown };
      if (method !== 'POST' || !path.includes('/messages') || typeof body.wire_envelope !== 'string')
        return json;
      relay.onRequest = undefined;
      const bytes = Buffer.from(body.wire_envelope, 'base64');
      bytes[bytes.length - 40]! ^= 0xff; // inside the ciphertext
      return { ...body, wire_envelope: bytes.toString('base64') };
    };
    await world.sendAsUser('tampered on the way to the webhook', { conversationId: hooked.conversationId });
    const failure = await until(() => failures[0], 'the webhook decrypt failure');
    const failedRoot = await until(() => receiveOf(failure.deliveryId), 'its receive span');
    stop();
    expect(failedRoot.attributes['ams.outcome']).toBe('skipped');
    const failedOpen = childrenOf(failedRoot);
    expect(failedOpen.map((s) => s.name)).toEqual(['open message.new']);
    expect(failedOpen[0]!.attributes['error.type']).toBe(failure.code);
    expect(failedOpen[0]!.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('no exported attribute holds content, a key or a token', async () => {
    const text = (r: { bytes: Uint8Array }): string => Buffer.from(r.bytes).toString('latin1');
    const tokens = new Set<string>();
    for (const r of world.relay!.records) {
      if (r.channel !== 'http-request' && r.channel !== 'ws-up') continue;
      for (const m of text(r).matchAll(/(?:authorization: bearer |"token":")([A-Za-z0-9._~+/=-]{16,})/gi))
        tokens.add(m[1]!);
    }
    expect(tokens.size).toBeGreaterThan(0);
    await reader.forceFlush();
    const values: string[] = [];
    for (const s of spans.getFinishedSpans()) {
      values.push(s.name, ...Object.values(s.attributes).map(String));
      for (const e of s.events) values.push(e.name, ...Object.values(e.attributes ?? {}).map(String));
    }
    for (const batch of metricExporter.getMetrics())
      for (const m of batch.scopeMetrics.flatMap((x) => x.metrics))
        for (const p of m.dataPoints) values.push(...Object.values(p.attributes).map(String));
    expect(values.length).toBeGreaterThan(50);
    const all = values.join('\n');
    expect(all).not.toContain(MARKER);
    expect(all).not.toContain('are you there');
    for (const t of tokens) expect(all).not.toContain(t);
  });
});
