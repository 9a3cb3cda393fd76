/**
 * The dev console's live feed (`GET /_control/agents/:id/feed`, Server-Sent
 * Events) without a browser: its event format on a real webhook retry run
 * and a WebSocket session, its gating (dev mode on loopback only), and bad
 * agent ids refused with catalogue errors.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { WEBHOOK_RETRY_SCHEDULE_MS } from '../../../packages/sdk/src/core/limits.js';
import { startWebhookHost } from '../../../packages/dev/src/testing/test-world-parts.js';
import {
  connectAgent,
  createTestAgent,
  createTestUser,
  startAgentServer,
} from '../../helpers/server-agents.js';
import { call, startTestServer } from '../../helpers/server-http.js';

let server: ReferenceServer;

beforeAll(async () => {
  server = await startAgentServer({ dev: true });
});
afterAll(() => server.close());

interface FeedEvent {
  type: string;
  agent_id: string;
  at: string;
  delivery_id?: string;
  event_type?: string;
  attempt?: Record<string, unknown>;
  connection_status: string;
  pending_count: number;
  websocket_connections: number;
}

/** An open feed: the raw text so far and its parsed events. */
async function openFeed(agentId: string, path = `/_control/agents/${agentId}/feed`) {
  const abort = new AbortController();
  const res = await fetch(`${server.url}${path}`, { signal: abort.signal });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  expect(res.headers.get('cache-control')).toBe('no-store');
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const feed = { raw: '', events: [] as FeedEvent[] };
  let waiters: (() => void)[] = [];
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done === true || value === undefined) return;
      feed.raw += decoder.decode(value, { stream: true });
      feed.events = feed.raw
        .split('\n\n')
        .filter((block) => block.startsWith('data: '))
        .map((block) => JSON.parse(block.slice('data: '.length)) as FeedEvent);
      for (const w of waiters.splice(0)) w();
    }
  })();
  return {
    feed,
    /** Resolves once an event matches (8 s of real time at most). */
    async until(pred: (e: FeedEvent) => boolean): Promise<FeedEvent> {
      const deadline = Date.now() + 8_000;
      for (;;) {
        const hit = feed.events.find(pred);
        if (hit !== undefined) return hit;
        if (Date.now() > deadline) throw new Error(`no such feed event in ${feed.raw}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    close: () => {
      waiters = [];
      abort.abort();
    },
  };
}

describe('console feed: event format', () => {
  it('a webhook retry run: queued, each attempt with status, latency and next attempt, delivered; no secret', async () => {
    const user = await createTestUser(server);
    const agent = await createTestAgent(server, user);
    const hook = await startWebhookHost();
    hook.use((_req, res) => void res.writeHead(200).end());
    const { secret } = await server.control.setWebhook(agent.agentId, { url: hook.url });
    const live = await openFeed(agent.agentId);
    try {
      const snapshot = await live.until((e) => e.type === 'snapshot');
      expect(live.feed.raw.startsWith('retry: 1000\n\n')).toBe(true);
      expect(snapshot).toEqual({
        type: 'snapshot',
        agent_id: agent.agentId,
        at: '2026-03-01T12:00:00.000Z',
        connection_status: 'ready',
        pending_count: 0,
        websocket_connections: 0,
      });
      await call(server, 'POST', `/_control/agents/${agent.agentId}/webhook-faults`, {
        json: { status: 503, count: 2 },
      });
      await server.control.sendSystemEvent(agent.agentId, 'agent.test', {});
      const queued = await live.until((e) => e.type === 'queued');
      expect(queued).toMatchObject({ event_type: 'agent.test', pending_count: 1 });
      const id = queued.delivery_id!;
      const second = await live.until((e) => e.type === 'attempt_finished' && e.attempt?.['attempt'] === 2);
      expect(second).toMatchObject({
        delivery_id: id,
        pending_count: 1,
        attempt: {
          channel: 'webhook',
          status_code: 503,
          outcome: 'temporary',
          error_class: 'http_5xx',
          next_attempt_at: new Date(Date.parse(second.at) + WEBHOOK_RETRY_SCHEDULE_MS[1]!).toISOString(),
        },
      });
      expect(live.feed.events.filter((e) => e.type === 'attempt_started')).toHaveLength(2);
      const pending = await call(server, 'GET', `/_control/agents/${agent.agentId}/deliveries/pending`);
      expect(pending.data).toEqual([
        expect.objectContaining({ delivery_id: id, state: 'retrying', attempt_count: 2 }),
      ]);
      await server.advanceTime(WEBHOOK_RETRY_SCHEDULE_MS[1]!);
      const delivered = await live.until((e) => e.type === 'delivered');
      expect(delivered).toMatchObject({ delivery_id: id, pending_count: 0, connection_status: 'ready' });
      const third = live.feed.events.find(
        (e) => e.type === 'attempt_finished' && e.attempt?.['attempt'] === 3,
      );
      expect(third?.attempt).toMatchObject({ status_code: 200, outcome: 'delivered', next_attempt_at: null });
      for (const s of [secret, agent.token, user.accessToken]) expect(live.feed.raw).not.toContain(s);
      expect(live.feed.raw).not.toContain('wire_envelope');
    } finally {
      live.close();
      await hook.close();
    }
  });

  it('a WebSocket session: connected and closed with the connection count; a frame acked shows its latency', async () => {
    const agent = await createTestAgent(server, await createTestUser(server));
    const live = await openFeed(agent.agentId);
    try {
      const probe = await connectAgent(server, agent);
      expect(await live.until((e) => e.type === 'websocket_connected')).toMatchObject({
        websocket_connections: 1,
      });
      await server.control.sendSystemEvent(agent.agentId, 'agent.test', {});
      const finished = await live.until((e) => e.type === 'attempt_finished');
      // This probe did not ask for acks: the frame counts as delivered once written.
      expect(finished.attempt).toMatchObject({ channel: 'websocket', outcome: 'sent', status_code: null });
      expect(typeof finished.attempt?.['connection']).toBe('number');
      const drop = await call(server, 'POST', `/_control/agents/${agent.agentId}/websocket/drop`);
      expect(drop.data).toMatchObject({ closed: 1 });
      expect(await live.until((e) => e.type === 'websocket_closed')).toMatchObject({
        websocket_connections: 0,
      });
      probe.close();
    } finally {
      live.close();
    }
  });
});

describe('console feed: gating and bad ids', () => {
  it('unknown agent → 404 AGENT_NOT_FOUND; malformed id → 400 VALIDATION_ERROR', async () => {
    const unknown = await call(server, 'GET', '/_control/agents/00000000-0000-4000-8000-000000000000/feed');
    expect(unknown.status).toBe(404);
    expect(unknown.error?.code).toBe('AGENT_NOT_FOUND');
    for (const bad of ['a%01b', 'x'.repeat(400)]) {
      const res = await call(server, 'GET', `/_control/agents/${bad}/feed`);
      expect(res.status, bad).toBe(400);
      expect(res.error?.code).toBe('VALIDATION_ERROR');
    }
  });

  it('any id is refused with a 4xx catalogue error, never a stream or a crash (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 300 }), async (raw) => {
        const res = await call(server, 'GET', `/_control/agents/${encodeURIComponent(raw)}/feed`);
        expect([400, 404]).toContain(res.status);
        expect(['VALIDATION_ERROR', 'AGENT_NOT_FOUND', 'NOT_FOUND']).toContain(res.error?.code);
      }),
      { numRuns: 60 },
    );
  });

  it('is NOT_FOUND without dev mode, and on a non-loopback host', async () => {
    for (const options of [{ dev: false }, { dev: true, host: '0.0.0.0' }]) {
      const other = await startTestServer(options);
      try {
        const url = other.url.replace('0.0.0.0', '127.0.0.1');
        const res = await call({ url }, 'GET', '/_control/agents/00000000-0000-4000-8000-000000000000/feed');
        expect(res.status).toBe(404);
        expect(res.error?.code).toBe('NOT_FOUND');
      } finally {
        await other.close();
      }
    }
  });
});

describe('console user feed (GET /_control/users/:id/feed)', () => {
  it('opens with a snapshot, then tells of an agent created for the user elsewhere; no token', async () => {
    const user = await createTestUser(server);
    const live = await openFeed('', `/_control/users/${user.userId}/feed`);
    try {
      const snapshot = (await live.until((e) => e.type === 'snapshot')) as unknown as Record<string, unknown>;
      expect(snapshot).toMatchObject({ type: 'snapshot', user_id: user.userId });
      const created = await server.control.createAgent({ ownerId: user.userId, name: 'From the CLI' });
      const event = (await live.until((e) => e.type === 'agent_created')) as unknown as Record<
        string,
        unknown
      >;
      expect(event).toEqual({
        type: 'agent_created',
        user_id: user.userId,
        agent_id: created.agentId,
        at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
      });
      // Another user's agent is not this user's news.
      const other = await createTestUser(server);
      await server.control.createAgent({ ownerId: other.userId, name: 'Not yours' });
      await server.control.createAgent({ ownerId: user.userId, name: 'Second' });
      await live.until(
        (e) =>
          (e as unknown as { agent_id?: string }).agent_id !== created.agentId && e.type === 'agent_created',
      );
      expect(live.feed.events.filter((e) => e.type === 'agent_created')).toHaveLength(2);
      expect(live.feed.raw).not.toContain(created.token);
    } finally {
      live.close();
    }
  });

  it('unknown user → 404 USER_NOT_FOUND; malformed id → 400 VALIDATION_ERROR; any id a 4xx (property)', async () => {
    const unknown = await call(server, 'GET', '/_control/users/00000000-0000-4000-8000-000000000000/feed');
    expect(unknown.status).toBe(404);
    expect(unknown.error?.code).toBe('USER_NOT_FOUND');
    const bad = await call(server, 'GET', '/_control/users/a%01b/feed');
    expect(bad.status).toBe(400);
    expect(bad.error?.code).toBe('VALIDATION_ERROR');
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 300 }), async (raw) => {
        const res = await call(server, 'GET', `/_control/users/${encodeURIComponent(raw)}/feed`);
        expect([400, 404]).toContain(res.status);
        expect(['VALIDATION_ERROR', 'USER_NOT_FOUND', 'NOT_FOUND']).toContain(res.error?.code);
      }),
      { numRuns: 40 },
    );
  });

  it('is NOT_FOUND without dev mode', async () => {
    const other = await startTestServer({ dev: false });
    try {
      const res = await call(other, 'GET', '/_control/users/00000000-0000-4000-8000-000000000000/feed');
      expect(res.status).toBe(404);
      expect(res.error?.code).toBe('NOT_FOUND');
    } finally {
      await other.close();
    }
  });
});
