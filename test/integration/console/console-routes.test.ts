/**
 * The dev console's server side without a browser: the page and its script
 * only in dev mode on loopback, security headers, and the control routes it
 * uses (service view, delivery log, injected webhook failures) refusing bad
 * input with catalogue errors.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { isLoopbackHost } from '../../../packages/dev/src/server/console/routes.js';
import { createTestAgent, createTestUser, startAgentServer } from '../../helpers/server-agents.js';
import { ensureConsoleBuilt } from '../../helpers/console-browser.js';
import { call, startTestServer } from '../../helpers/server-http.js';

let server: ReferenceServer;

beforeAll(async () => {
  await ensureConsoleBuilt();
  server = await startAgentServer();
});
afterAll(() => server.close());

describe('console page', () => {
  it('serves the page, style sheet and script with a same-origin CSP and no caching', async () => {
    for (const [path, type] of [
      ['/_console/', 'text/html'],
      ['/_console', 'text/html'],
      ['/_console/console.css', 'text/css'],
      ['/_console/console.js', 'text/javascript'],
    ] as const) {
      const res = await call(server, 'GET', path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toContain(type);
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('is absent when the server is not in dev mode (404 NOT_FOUND)', async () => {
    const prod = await startTestServer({ dev: false });
    try {
      expect(prod.consoleUrl).toBeUndefined();
      for (const path of ['/_console/', '/_console/console.js', '/_control/agents/x/service']) {
        const res = await call(prod, 'GET', path);
        expect(res.status).toBe(404);
        expect(res.error?.code).toBe('NOT_FOUND');
      }
    } finally {
      await prod.close();
    }
  });

  it('is announced by the server that serves it (consoleUrl)', () => {
    expect(server.consoleUrl).toBe(`${server.url}/_console/`);
  });

  it('is served on loopback hosts only', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'])
      expect(isLoopbackHost(host)).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.168.1.2', 'example.com', '127.0.0.1.example.com'])
      expect(isLoopbackHost(host)).toBe(false);
  });
});

describe('console control routes', () => {
  it('unknown agent → AGENT_NOT_FOUND on each route', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    for (const [method, path, json] of [
      ['GET', `/_control/agents/${id}/service`, undefined],
      ['GET', `/_control/agents/${id}/delivery-logs`, undefined],
      ['POST', `/_control/agents/${id}/webhook-faults`, { status: 503, count: 1 }],
      ['POST', `/_control/agents/${id}/recover`, undefined],
      ['POST', `/_control/agents/${id}/deliveries/${id}/replay`, undefined],
      ['GET', `/_control/agents/${id}/deliveries/${id}/attempts`, undefined],
      ['GET', `/_control/agents/${id}/deliveries/${id}`, undefined],
      ['POST', `/_control/agents/${id}/websocket/drop`, undefined],
    ] as const) {
      const res = await call(server, method, path, json === undefined ? {} : { json });
      expect(res.status, path).toBe(404);
      expect(res.error?.code).toBe('AGENT_NOT_FOUND');
    }
  });

  it('an agent in WebSocket mode cannot get webhook failures → VALIDATION_ERROR no_webhook', async () => {
    const agent = await createTestAgent(server, await createTestUser(server));
    const res = await call(server, 'POST', `/_control/agents/${agent.agentId}/webhook-faults`, {
      json: { status: 503, count: 2 },
    });
    expect(res.status).toBe(400);
    expect(res.error?.code).toBe('VALIDATION_ERROR');
    expect(res.error?.params['reason']).toBe('no_webhook');
    const view = await call(server, 'GET', `/_control/agents/${agent.agentId}/service`);
    expect(view.data).toMatchObject({
      delivery_mode: 'websocket',
      pending_count: 0,
      injected_failures_left: 0,
    });
  });

  it('a bad delivery-logs limit → VALIDATION_ERROR', async () => {
    const agent = await createTestAgent(server, await createTestUser(server));
    const res = await call(server, 'GET', `/_control/agents/${agent.agentId}/delivery-logs?limit=0`);
    expect(res.error?.code).toBe('VALIDATION_ERROR');
  });

  it('malformed fault bodies are refused with VALIDATION_ERROR, never a crash (property)', async () => {
    const agent = await createTestAgent(server, await createTestUser(server));
    await server.control.setWebhook(agent.agentId, { url: 'http://127.0.0.1:9/hook' });
    const path = `/_control/agents/${agent.agentId}/webhook-faults`;
    const body = fc.oneof(
      fc.record({
        status: fc.integer().filter((n) => ![408, 429, 500, 502, 503, 504].includes(n)),
        count: fc.nat(5),
      }),
      fc.record({
        status: fc.constant(503),
        count: fc.oneof(fc.integer({ max: -1 }), fc.integer({ min: 101 })),
      }),
      fc.record({ status: fc.string().filter((s) => s !== 'timeout'), count: fc.anything() }),
      fc.dictionary(fc.string(), fc.jsonValue()),
    );
    await fc.assert(
      fc.asyncProperty(body, async (json) => {
        const res = await call(server, 'POST', path, { json });
        expect(res.status).toBe(400);
        expect(res.error?.code).toBe('VALIDATION_ERROR');
      }),
      { numRuns: 60 },
    );
    const set = await call(server, 'POST', path, { json: { status: 500, count: 3 } });
    expect(set.data).toMatchObject({ status: 500, remaining: 3 });
    const cleared = await call(server, 'POST', path, { json: { status: 500, count: 0 } });
    expect(cleared.data).toMatchObject({ remaining: 0 });
  });

  it("replaying a delivery that is unknown, another agent's, or random → NOT_FOUND delivery_not_replayable (property)", async () => {
    const agent = await createTestAgent(server, await createTestUser(server));
    const other = await createTestAgent(server, await createTestUser(server));
    const base = `/_control/agents/${agent.agentId}/deliveries`;
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 80 }), async (raw) => {
        const res = await call(server, 'POST', `${base}/${encodeURIComponent(raw)}/replay`);
        expect(res.status).toBe(404);
        expect(res.error?.code).toBe('NOT_FOUND');
        expect(res.error?.params['reason']).toBe('delivery_not_replayable');
        const attempts = await call(server, 'GET', `${base}/${encodeURIComponent(raw)}/attempts`);
        expect(attempts.data).toEqual([]);
      }),
      { numRuns: 40 },
    );
    // A real delivery of one agent is not replayable as another's.
    // 408 is a permanent failure: the delivery leaves the queue at once (final status `failed`).
    await server.control.setWebhook(other.agentId, { url: 'http://127.0.0.1:9/hook' });
    await call(server, 'POST', `/_control/agents/${other.agentId}/webhook-faults`, {
      json: { status: 408, count: 1 },
    });
    await server.control.sendSystemEvent(other.agentId, 'agent.test', {});
    await server.control.deliveryIdle();
    const [entry] = (await call(server, 'GET', `/_control/agents/${other.agentId}/delivery-logs`))
      .data as unknown as {
      delivery_id: string;
    }[];
    expect(entry).toBeDefined();
    const res = await call(server, 'POST', `${base}/${entry!.delivery_id}/replay`);
    expect(res.error?.params['reason']).toBe('delivery_not_replayable');
  });

  it("the inspector's delivery: headers sent (never the secret), the envelope, attempts, outcomes; the conversation's timeline lists it", async () => {
    const agent = await createTestAgent(server, await createTestUser(server));
    const other = await createTestAgent(server, await createTestUser(server));
    const { secret } = await server.control.setWebhook(agent.agentId, { url: 'http://127.0.0.1:9/hook' });
    await call(server, 'POST', `/_control/agents/${agent.agentId}/webhook-faults`, {
      json: { status: 408, count: 1 },
    });
    await server.control.sendSystemEvent(agent.agentId, 'agent.test', {});
    await server.control.deliveryIdle();
    const [entry] = (await call(server, 'GET', `/_control/agents/${agent.agentId}/delivery-logs`))
      .data as unknown as { delivery_id: string }[];
    const path = `/_control/agents/${agent.agentId}/deliveries/${entry!.delivery_id}`;
    const res = await call(server, 'GET', path);
    expect(res.status).toBe(200);
    const view = res.data as unknown as {
      event_type: string;
      conversation_id: string;
      wire_envelope: string;
      replays: number;
      pending_state: string | null;
      outcomes: { final_status: string }[];
      attempts: { run: number; channel: string; status_code: number; headers: Record<string, string> }[];
    };
    expect(view).toMatchObject({ event_type: 'agent.test', replays: 0, pending_state: null });
    expect(view.wire_envelope.length).toBeGreaterThan(0);
    expect(view.outcomes.map((o) => o.final_status)).toEqual(['failed']);
    expect(view.attempts).toHaveLength(1);
    expect(view.attempts[0]).toMatchObject({ run: 1, channel: 'webhook', status_code: 408 });
    expect(Object.keys(view.attempts[0]!.headers)).toContain('content-type');
    expect(Object.values(view.attempts[0]!.headers)).toContain(entry!.delivery_id);
    expect(JSON.stringify(view)).not.toContain(secret);
    // Replayed (failing at once again): the view counts the replay and its attempt belongs to run 2.
    await call(server, 'POST', `/_control/agents/${agent.agentId}/webhook-faults`, {
      json: { status: 408, count: 1 },
    });
    await call(server, 'POST', `${path}/replay`);
    await server.control.deliveryIdle();
    const again = (await call(server, 'GET', path)).data as unknown as typeof view;
    expect(again.replays).toBe(1);
    expect(again.attempts.map((a) => a.run)).toEqual([1, 2]);
    expect(again.outcomes).toHaveLength(2);
    // The timeline of its conversation lists it; another agent's id or an unknown one is not found.
    const timeline = await call(server, 'GET', `/_control/conversations/${view.conversation_id}/deliveries`);
    expect((timeline.data as unknown as { delivery_id: string }[]).map((d) => d.delivery_id)).toContain(
      entry!.delivery_id,
    );
    const unknownConv = await call(server, 'GET', `/_control/conversations/nope/deliveries`);
    expect(unknownConv.data).toEqual([]);
    for (const wrong of [
      `/_control/agents/${other.agentId}/deliveries/${entry!.delivery_id}`,
      `/_control/agents/${agent.agentId}/deliveries/not-a-delivery`,
    ]) {
      const r = await call(server, 'GET', wrong);
      expect(r.status, wrong).toBe(404);
      expect(r.error?.params['reason']).toBe('delivery_not_kept');
    }
    // `pending` is still the pending list, not a delivery id.
    const pending = await call(server, 'GET', `/_control/agents/${agent.agentId}/deliveries/pending`);
    expect(pending.data).toEqual([]);
  });

  it("a 'timeout' fault is accepted; dropping an agent's WebSocket with none open closes 0", async () => {
    const agent = await createTestAgent(server, await createTestUser(server));
    await server.control.setWebhook(agent.agentId, { url: 'http://127.0.0.1:9/hook' });
    const set = await call(server, 'POST', `/_control/agents/${agent.agentId}/webhook-faults`, {
      json: { status: 'timeout', count: 2 },
    });
    expect(set.data).toMatchObject({ status: 'timeout', remaining: 2 });
    const drop = await call(server, 'POST', `/_control/agents/${agent.agentId}/websocket/drop`);
    expect(drop.data).toEqual({ agent_id: agent.agentId, closed: 0 });
    const view = await call(server, 'GET', `/_control/agents/${agent.agentId}/service`);
    expect(view.data).toMatchObject({
      websocket_connections: 0,
      governance_level: 'none',
      token_active: true,
      token_grace_until: 'none',
    });
  });
});
