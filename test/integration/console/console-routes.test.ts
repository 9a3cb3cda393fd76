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
