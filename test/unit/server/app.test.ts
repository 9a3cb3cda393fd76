import { describe, expect, it } from 'vitest';
import { createRequestHandler } from '../../../packages/dev/src/server/app.js';
import { createServerContext } from '../../../packages/dev/src/server/create-context.js';
import { fail } from '../../../packages/dev/src/server/http/failure.js';
import { ok } from '../../../packages/dev/src/server/http/respond.js';
import { defineRoute, Router } from '../../../packages/dev/src/server/http/router.js';
import type { ServerRequest } from '../../../packages/dev/src/server/http/types.js';

const req = (path: string): ServerRequest => ({
  method: 'GET',
  path,
  query: new URLSearchParams(),
  headers: {},
  body: new Uint8Array(),
});

describe('the request handler', () => {
  const logged: string[] = [];
  const ctx = createServerContext({
    passwordHashing: { logN: 4 },
    logger: { info: () => {}, warn: () => {}, error: (m) => void logged.push(m) },
  });
  const router = new Router().add(
    defineRoute({ method: 'GET', path: '/ok', auth: 'none', handler: () => ok({ fine: true }) }),
    defineRoute({
      method: 'GET',
      path: '/refuse',
      auth: 'none',
      handler: () => {
        throw fail('FORBIDDEN', 'No.', { why: 'test' });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/crash',
      auth: 'none',
      handler: () => {
        throw new Error('leaked Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl');
      },
    }),
  );
  const handle = createRequestHandler(ctx, router);

  it('wraps success under data and failures under error with the catalogue status', async () => {
    expect(await handle(req('/ok'))).toMatchObject({ status: 200, body: { data: { fine: true } } });
    expect(await handle(req('/refuse'))).toMatchObject({
      status: 403,
      body: {
        error: { code: 'FORBIDDEN', message: 'No.', i18n_key: 'errors.forbidden', params: { why: 'test' } },
      },
    });
  });

  it('turns an unexpected exception into a bare 500 and logs it without the secret', async () => {
    const res = await handle(req('/crash'));
    expect(res).toMatchObject({ status: 500, body: { error: { code: 'INTERNAL_ERROR', params: {} } } });
    expect(JSON.stringify(res.body)).not.toMatch(/leaked|eyJ|at /);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('/crash');
    expect(logged[0]).not.toContain('eyJhbGciOiJIUzI1NiJ9');
  });
});
