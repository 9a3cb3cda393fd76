import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ok } from '../../../../packages/dev/src/server/http/respond.js';
import { defineRoute, Router } from '../../../../packages/dev/src/server/http/router.js';

const route = (method: 'GET' | 'POST' | 'DELETE', path: string) =>
  defineRoute({ method, path, auth: 'none', handler: () => ok({ path }) });

describe('Router', () => {
  const router = new Router().add(
    route('GET', '/users/me/devices'),
    route('DELETE', '/users/me/devices/:device_id'),
    route('POST', '/auth/login'),
  );

  it('matches literal paths and decodes parameters', () => {
    expect(router.match('GET', '/users/me/devices')).toMatchObject({ kind: 'found', params: {} });
    expect(router.match('DELETE', '/users/me/devices/a%2Fb%20c')).toMatchObject({
      kind: 'found',
      params: { device_id: 'a/b c' },
    });
  });

  it('tells a wrong method from an unknown path', () => {
    expect(router.match('GET', '/auth/login')).toEqual({ kind: 'method_not_allowed', allow: ['POST'] });
    expect(router.match('GET', '/auth/login/')).toEqual({ kind: 'not_found' });
    expect(router.match('DELETE', '/users/me/devices/')).toEqual({ kind: 'not_found' });
    expect(router.match('DELETE', '/users/me/devices/%E0%A4%A')).toEqual({ kind: 'not_found' });
  });

  it('refuses duplicate routes', () => {
    expect(() => new Router().add(route('GET', '/x'), route('GET', '/x'))).toThrow(/Duplicate route/);
  });

  it('never throws on any path (fast-check)', () => {
    fc.assert(
      fc.property(fc.constantFrom('GET', 'POST', 'DELETE', 'PUT'), fc.string(), (method, path) => {
        const m = router.match(method, `/${path}`);
        expect(['found', 'method_not_allowed', 'not_found']).toContain(m.kind);
      }),
    );
  });
});
