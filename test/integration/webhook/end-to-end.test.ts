/**
 * End to end: the reference server's delivery engine POSTs real signed
 * deliveries to the receiver mounted in each framework on 127.0.0.1, which
 * verifies them with the secret the owner was issued, de-duplicates, fetches
 * `ref` objects from `/r2`, opens envelopes with the agent's keys and calls
 * the handler. The engine and the receiver share the server's virtual clock,
 * so the 30 s and 2 min steps of the retry schedule pass at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryLogListSchema } from '../../../packages/sdk/src/core/protocol/delivery-log.js';
import { generateKeys } from '../../../packages/sdk/src/crypto/index.js';
import { SYSTEM_SENDER_ID, type ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { startAgentServer } from '../../helpers/server-agents.js';
import { call } from '../../helpers/server-http.js';
import { startEndToEnd, until, type EndToEnd } from './end-to-end-setup.js';
import { FRAMEWORKS } from './servers.js';

let server: ReferenceServer;
beforeAll(async () => {
  server = await startAgentServer();
});
afterAll(() => server.close());

async function lastLog(e: EndToEnd) {
  const res = await call(server, 'GET', `/agents/${e.agent.agentId}/delivery-logs?limit=1`, {
    token: e.agent.token,
  });
  return DeliveryLogListSchema.parse(res.data)[0]!;
}

const textOf = (e: EndToEnd, i: number) => e.handled[i]?.payload.payload['text'];

describe.each(Object.keys(FRAMEWORKS))('end to end through %s', (framework) => {
  let e: EndToEnd;
  beforeAll(async () => {
    e = await startEndToEnd(server, framework);
  });
  afterAll(() => e.close());

  it('opens relation.established from the system sender and a user message, answering 200', async () => {
    expect(e.handled[0]).toMatchObject({
      type: 'relation.established',
      agentId: e.agent.agentId,
      secretIndex: 0,
    });
    expect(e.handled[0]!.payload.senderId).toBe(SYSTEM_SENDER_ID);
    await e.send({ type: 'text', text: 'hello agent' });
    await server.control.deliveryIdle();
    expect(e.handled).toHaveLength(2);
    expect(e.handled[1]).toMatchObject({ type: 'message.new' });
    expect(e.handled[1]!.payload.senderId).toBe(e.user.userId);
    expect(textOf(e, 1)).toBe('hello agent');
    expect(e.answers.map((a) => [a.status, a.outcome])).toEqual([
      [200, 'processed'],
      [200, 'processed'],
    ]);
    expect(await lastLog(e)).toMatchObject({
      final_status: 'delivered',
      attempt_count: 1,
      event_type: 'message.new',
    });
  });

  it('retries a receiver that fails its first attempts on the schedule until it recovers', async () => {
    const before = e.answers.length;
    e.failNext = 3;
    await e.send({ type: 'text', text: 'eventually' });
    await server.control.deliveryIdle();
    // Failure 1 is retried at once; failure 2 waits 30 s, failure 3 two minutes.
    expect(e.answers.slice(before).map((a) => a.status)).toEqual([500, 500]);
    server.advanceTime(29_999);
    await server.control.deliveryIdle();
    expect(e.answers.length - before).toBe(2);
    server.advanceTime(1);
    await server.control.deliveryIdle();
    expect(e.answers.slice(before).map((a) => a.status)).toEqual([500, 500, 500]);
    server.advanceTime(120_000);
    await server.control.deliveryIdle();
    const mine = e.answers.slice(before);
    expect(mine.map((a) => [a.status, a.code ?? a.outcome])).toEqual([
      [500, 'HANDLER_FAILED'],
      [500, 'HANDLER_FAILED'],
      [500, 'HANDLER_FAILED'],
      [200, 'processed'],
    ]);
    expect(new Set(mine.map((a) => a.deliveryId)).size).toBe(1);
    expect(textOf(e, e.handled.length - 1)).toBe('eventually');
    expect(e.handled.filter((h) => h.deliveryId === mine[0]!.deliveryId)).toHaveLength(1);
    expect(await lastLog(e)).toMatchObject({ final_status: 'delivered', attempt_count: 4 });
  });

  it('receives a 1.5 MB message by ref, fetched from /r2 with the agent token and opened', async () => {
    const text = 'z'.repeat(1_200_000);
    const fetchedBefore = e.fetched.length;
    await e.send({ type: 'text', text });
    await server.control.deliveryIdle();
    const last = e.handled.at(-1)!;
    expect(last.delivery.wire_envelope).toBeNull();
    expect(last.delivery.ref).toMatchObject({ type: 'r2', content_type: 'application/octet-stream' });
    expect(last.delivery.ref!.size).toBeGreaterThan(1_048_576);
    expect(e.fetched.slice(fetchedBefore)).toEqual([`${server.url}/r2/${last.delivery.ref!.object_key}`]);
    expect(last.payload.payload['text']).toBe(text);
    expect(e.answers.at(-1)).toMatchObject({ status: 200, outcome: 'processed' });
  });

  it('acknowledges an envelope that cannot be opened with 200 and a decryptFailure event', async () => {
    const handled = e.handled.length;
    // Signed with a key other than the one the user published: no retry can fix that.
    await e.send({ type: 'text', text: 'forged' }, generateKeys());
    await server.control.deliveryIdle();
    expect(e.handled).toHaveLength(handled);
    const answer = e.answers.at(-1)!;
    expect(answer).toMatchObject({ status: 200, outcome: 'decrypt_failed' });
    expect(e.events.at(-1)).toMatchObject({
      type: 'decryptFailure',
      deliveryId: answer.deliveryId,
      reason: 'signature',
      code: 'DECRYPT_FAILURE',
      eventType: 'message.new',
    });
    expect(await lastLog(e)).toMatchObject({ final_status: 'delivered', attempt_count: 1 });
  });

  it('answers a copy that arrives while the first is still handled 429, never done', async () => {
    const before = e.answers.length;
    let open!: () => void;
    e.gate = new Promise((resolve) => (open = resolve));
    const startedBefore = e.started.length;
    await e.send({ type: 'text', text: 'slow' });
    await until(() => e.started.length > startedBefore, 'the handler to start');
    // The service gives up after 10 s and retries at once, while the handler still runs.
    server.advanceTime(10_000);
    await until(() => e.answers.length > before, 'the answer to the copy');
    await server.control.deliveryIdle();
    expect(e.answers.slice(before)).toEqual([
      expect.objectContaining({ status: 429, code: 'WEBHOOK_DELIVERY_IN_PROGRESS', retryAfter: '10' }),
    ]);
    open();
    e.gate = undefined;
    await until(() => e.answers.length > before + 1, 'the first attempt to finish');
    expect(e.answers[before + 1]).toMatchObject({ status: 200, outcome: 'processed' });
    // The service retries as the 429 asked: now the delivery is done, so the copy is a duplicate.
    server.advanceTime(10_000);
    await server.control.deliveryIdle();
    const mine = e.answers.slice(before);
    expect(mine.map((a) => a.status)).toEqual([429, 200, 200]);
    expect(mine[2]).toMatchObject({ outcome: 'duplicate' });
    expect(new Set(mine.map((a) => a.deliveryId)).size).toBe(1);
    expect(e.handled.filter((h) => h.deliveryId === mine[0]!.deliveryId)).toHaveLength(1);
    expect(await lastLog(e)).toMatchObject({ final_status: 'delivered', attempt_count: 3 });
  });
});
