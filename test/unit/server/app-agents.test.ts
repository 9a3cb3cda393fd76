import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRequestHandler } from '../../../packages/dev/src/server/app.js';
import { createAgent } from '../../../packages/dev/src/server/agents/service.js';
import { createServerContext } from '../../../packages/dev/src/server/create-context.js';
import { ok } from '../../../packages/dev/src/server/http/respond.js';
import { bodyLimitOf, defineRoute, Router } from '../../../packages/dev/src/server/http/router.js';
import type { ServerRequest } from '../../../packages/dev/src/server/http/types.js';

function request(method: string, path: string, token: string | undefined, body?: unknown): ServerRequest {
  const bytes = body === undefined ? new Uint8Array() : new TextEncoder().encode(JSON.stringify(body));
  return {
    method,
    path,
    query: new URLSearchParams(),
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: bytes,
  };
}

describe('agent authentication in the router', () => {
  const ctx = createServerContext({ passwordHashing: { logN: 4 }, agentTokenBcryptCost: 4 });
  const order: string[] = [];
  const router = new Router().add(
    defineRoute({
      method: 'POST',
      path: '/agents/:id/probe',
      auth: 'agent',
      body: z.strictObject({ n: z.number() }),
      guard: () => void order.push('guard'),
      handler: ({ principal, body }) => {
        order.push('handler');
        return ok({ agent: principal.agentId, n: body.n });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/anyone/:id',
      auth: 'user_or_agent',
      handler: ({ principal }) => ok({ kind: principal.kind }),
    }),
    defineRoute({
      method: 'GET',
      path: '/big',
      auth: 'none',
      maxBodyBytes: (o) => o.maxMessageBodyBytes,
      handler: () => ok({}),
    }),
  );
  const handle = createRequestHandler(ctx, router);

  it('authenticates, checks the path agent, runs the guard before the body, then the handler', async () => {
    const a = await createAgent(ctx, 'owner', 'A');
    const b = await createAgent(ctx, 'owner', 'B');
    const good = await handle(request('POST', `/agents/${a.agent.agentId}/probe`, a.token, { n: 1 }));
    expect(good.status).toBe(200);
    expect(order).toEqual(['guard', 'handler']);
    order.length = 0;
    const badBody = await handle(request('POST', `/agents/${a.agent.agentId}/probe`, a.token, { n: 'x' }));
    expect(badBody.status).toBe(400);
    expect(order).toEqual(['guard']);
    order.length = 0;
    const other = await handle(request('POST', `/agents/${b.agent.agentId}/probe`, a.token, { n: 'x' }));
    expect(other.status).toBe(403);
    expect(order).toEqual([]);
    const none = await handle(request('POST', `/agents/${a.agent.agentId}/probe`, undefined, { n: 1 }));
    expect(none.status).toBe(401);
  });

  it('user_or_agent routes send hsk_ tokens the agent way and others the user way', async () => {
    const a = await createAgent(ctx, 'owner', 'C');
    expect((await handle(request('GET', '/anyone/x', a.token))).body).toEqual({ data: { kind: 'agent' } });
    const user = await handle(request('GET', '/anyone/x', 'eyJhbGciOiJIUzI1NiJ9.e30.sig'));
    expect(user.status).toBe(401);
  });

  it('a route body cap may follow the server options', () => {
    const route = router.routes.find((r) => r.path === '/big')!;
    expect(bodyLimitOf(route, ctx.options)).toBe(8 * 1_048_576);
    expect(bodyLimitOf(router.routes[0]!, ctx.options)).toBe(65_536);
  });
});
