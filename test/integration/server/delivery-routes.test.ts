/**
 * The delivery routes of the reference server over real HTTP, with a webhook
 * agent whose receiver is a scripted local server: recover, delivery logs
 * (limit bounds, retention), `GET /r2/<object_key>` (ownership, rate limit,
 * fetched with the SDK's ref fetcher) and bad input.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DeliveryLogListSchema } from '../../../packages/sdk/src/core/protocol/delivery-log.js';
import { ENVELOPE_REF_MAX_BYTES, open } from '../../../packages/sdk/src/crypto/index.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import {
  createRefFetcher,
  verifyWebhook,
  type WebhookDelivery,
} from '../../../packages/sdk/src/webhook/index.js';
import {
  addAgent,
  createTestAgent,
  createTestUser,
  openAs,
  sealAs,
  startAgentServer,
  type TestAgent,
  type TestUser,
} from '../../helpers/server-agents.js';
import { call, expectError } from '../../helpers/server-http.js';
import { answer, startScriptedReceiver, type ScriptedReceiver } from '../../helpers/server-receiver.js';

const DAY = 86_400_000;
let server: ReferenceServer;
let receiver: ScriptedReceiver;
let user: TestUser;
let agent: TestAgent;
let secret: string;
let conversationId: string;

beforeAll(async () => {
  server = await startAgentServer();
});
afterAll(() => server.close());

beforeEach(async () => {
  receiver = await startScriptedReceiver();
  user = await createTestUser(server);
  agent = await createTestAgent(server, user);
  const res = await call(server, 'PUT', `/agents/${agent.agentId}/webhook`, {
    token: user.accessToken,
    json: { url: receiver.url },
  });
  expect(res.status, res.text).toBe(200);
  secret = String(res.data['secret']);
  conversationId = await addAgent(server, user, agent.agentId);
  await server.control.deliveryIdle();
});
afterEach(() => receiver.close());

const asAgent = () => ({ id: agent.agentId, keys: agent.keys });
const asUser = () => ({ id: user.userId, keys: user.keys });

async function userSends(text: string): Promise<void> {
  const wire = sealAs(asUser(), [asAgent()], conversationId, { type: 'text', text });
  // Virtual time runs for hours in these tests: a fresh access token for the same device each time.
  const { accessToken } = await server.control.accessToken(user.userId, { deviceId: user.deviceId });
  const res = await call(server, 'POST', `/conversations/${conversationId}/messages`, {
    token: accessToken,
    json: { wire_envelope: wire },
  });
  expect(res.status, res.text).toBeLessThan(300);
  await server.control.deliveryIdle();
}

/** Verifies a recorded request with the SDK verifier at the server's time. */
async function verified(index: number): Promise<WebhookDelivery> {
  const req = receiver.requests[index]!;
  const out = await verifyWebhook({ secret, clock: server.clock, body: req.body, headers: req.headers });
  expect(out.agentId).toBe(agent.agentId);
  return out.delivery;
}

const logs = (query = '', token = agent.token, id = agent.agentId) =>
  call(server, 'GET', `/agents/${id}/delivery-logs${query}`, { token });

describe('POST /agents/:id/connection/recover', () => {
  it('an unreachable agent recovers: ready, pending_count, the queue flushed in order', async () => {
    receiver.setDefault(answer.status(503));
    await userSends('first');
    for (const gap of [30, 120, 480, 1920, 7200, 21600]) {
      server.advanceTime(gap * 1000);
      await server.control.deliveryIdle();
    }
    // relation.established (delivered) + 8 attempts of "first".
    expect(receiver.requests).toHaveLength(9);
    expect((await server.control.agent(agent.agentId))?.connection_status).toBe('unreachable');
    await userSends('second');
    await userSends('third');
    expect(receiver.requests).toHaveLength(9);
    receiver.setDefault(answer.status(200));
    const res = await call(server, 'POST', `/agents/${agent.agentId}/connection/recover`, {
      token: agent.token,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.data).toEqual({ pending_count: 3, connection_status: 'ready' });
    await server.control.deliveryIdle();
    const texts: unknown[] = [];
    for (let i = 9; i < receiver.requests.length; i++) {
      const delivery = await verified(i);
      texts.push(openAs(delivery.wire_envelope!, asAgent(), user.keys.signing.publicKey).payload['text']);
    }
    expect(texts).toEqual(['first', 'second', 'third']);
    const list = DeliveryLogListSchema.parse((await logs()).data);
    expect(list.map((e) => [e.final_status, e.attempt_count])).toEqual([
      ['delivered', 1],
      ['delivered', 1],
      ['delivered', 9],
      ['delivered', 1],
    ]);
  });

  it('refuses another agent, a user token, no token and a body', async () => {
    const other = await createTestAgent(server, user);
    const path = `/agents/${agent.agentId}/connection/recover`;
    expectError(await call(server, 'POST', path, { token: other.token }), 403, 'FORBIDDEN');
    expectError(await call(server, 'POST', path), 401, 'UNAUTHORIZED');
    expectError(await call(server, 'POST', path, { token: user.accessToken }), 401, 'UNAUTHORIZED');
    expectError(
      await call(server, 'POST', path, { token: 'hsk_' + 'A'.repeat(40) }),
      401,
      'AGENT_TOKEN_INVALID',
    );
    const err = expectError(
      await call(server, 'POST', path, { token: agent.token, json: { force: true } }),
      400,
      'VALIDATION_ERROR',
    );
    expect(err.params).toMatchObject({ field: 'force', reason: 'unknown_field' });
    const ok = await call(server, 'POST', path, { token: agent.token, json: {} });
    expect(ok.data).toEqual({ pending_count: 0, connection_status: 'ready' });
  });
});

describe('GET /agents/:agent_id/delivery-logs', () => {
  it('lists entries newest first, default 50, within 1 … 500; keeps them 30 days', async () => {
    for (let i = 0; i < 3; i++) {
      server.advanceTime(1000);
      await userSends(`m${i}`);
    }
    const all = DeliveryLogListSchema.parse((await logs()).data);
    expect(all).toHaveLength(4);
    expect(all.every((e) => e.agent_id === agent.agentId)).toBe(true);
    const times = all.map((e) => Date.parse(e.completed_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(all.at(-1)?.event_type).toBe('relation.established');
    expect((await logs('?limit=2')).data).toEqual(all.slice(0, 2));
    expect((await logs('?limit=500')).data).toEqual(all);
    // Entries completed at t, t+1 s, t+2 s, t+3 s; now is t+3 s. Exactly 30 days old is kept.
    server.advanceTime(30 * DAY - 3000);
    expect(DeliveryLogListSchema.parse((await logs()).data)).toHaveLength(4);
    server.advanceTime(1);
    expect(DeliveryLogListSchema.parse((await logs()).data)).toHaveLength(3);
    server.advanceTime(3000);
    expect((await logs()).data).toEqual([]);
  });

  it.each([
    ['?limit=0', 'too_small'],
    ['?limit=501', 'too_big'],
    ['?limit=abc', 'invalid_format'],
    ['?limit=2.5', 'invalid_format'],
    ['?limit=', 'invalid_format'],
    ['?limit=1&limit=2', 'invalid'],
  ])('%s → VALIDATION_ERROR (%s) with min 1 and max 500', async (query, reason) => {
    const err = expectError(await logs(query), 400, 'VALIDATION_ERROR');
    expect(err.params).toEqual({ field: 'limit', reason, min: 1, max: 500 });
  });

  it('is only for the agent itself', async () => {
    const other = await createTestAgent(server, user);
    expectError(await logs('', other.token), 403, 'FORBIDDEN');
    expectError(await logs('', user.accessToken), 401, 'UNAUTHORIZED');
    expectError(await logs('', ''), 401, 'UNAUTHORIZED');
  });
});

describe('GET /r2/<object_key>', () => {
  async function sendLarge(): Promise<{ key: string; size: number; text: string }> {
    const text = 'y'.repeat(1_200_000);
    await userSends(text);
    const delivery = await verified(receiver.requests.length - 1);
    expect(delivery.wire_envelope).toBeNull();
    expect(delivery.ref).toMatchObject({ type: 'r2', content_type: 'application/octet-stream' });
    return { key: delivery.ref!.object_key, size: delivery.ref!.size, text };
  }

  it('a 1.5 MB message reaches the webhook by ref; the SDK fetches and opens it', async () => {
    const { key, size, text } = await sendLarge();
    const fetchRef = createRefFetcher({ baseUrl: server.url, agentToken: agent.token, clock: server.clock });
    const bytes = await fetchRef({
      type: 'r2',
      object_key: key,
      size,
      content_type: 'application/octet-stream',
    });
    expect(bytes.length).toBe(size);
    const opened = open(bytes, {
      recipientId: agent.agentId,
      keys: agent.keys,
      senderKey: user.keys.signing.publicKey,
      maxEnvelopeBytes: ENVELOPE_REF_MAX_BYTES,
    });
    expect(opened.payload['text']).toBe(text);
  });

  it('serves only the owning agent, 5 per second, 429 with Retry-After and params.retry_after_ms', async () => {
    const { key, size } = await sendLarge();
    const get = (token = agent.token, k = key) => call(server, 'GET', `/r2/${k}`, { token });
    const other = await createTestAgent(server, user);
    expectError(await get(other.token), 404, 'NOT_FOUND');
    // Users fetch file objects of their conversations here (docs/files.md); a delivery's object stays the agent's.
    expectError(await get(user.accessToken), 404, 'NOT_FOUND');
    expectError(await get(agent.token, 'obj_unknown'), 404, 'NOT_FOUND');
    expectError(await get(agent.token, `${key}%2F..`), 404, 'NOT_FOUND');
    expectError(await get(agent.token, '%E0%A4%A'), 404, 'NOT_FOUND');
    expectError(await get(agent.token, `${key}/extra`), 404, 'NOT_FOUND');
    server.advanceTime(1000);
    for (let i = 0; i < 5; i++) {
      const res = await get();
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/octet-stream');
      expect(Number(res.headers.get('content-length'))).toBe(size);
    }
    const limited = expectError(await get(), 429, 'RATE_LIMITED');
    expect(limited.params['retry_after_ms']).toBe(1000);
    server.advanceTime(999);
    const again = await get();
    expect(again.status).toBe(429);
    expect(again.headers.get('retry-after')).toBe('1');
    server.advanceTime(1);
    expect((await get()).status).toBe(200);
  });
});
