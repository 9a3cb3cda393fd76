/**
 * The one table of names against the reference server: every route the
 * server mounts is either a path the service interface gives, a gap route of
 * SERVICE_ROUTES (same method, path and caller), or dev-only under
 * `/_control` (or the dev console's `/_console`); every gap route is mounted; the WebSocket address comes from
 * the table; and the SDK builds no gap path from a literal.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CORE_ROUTES,
  SERVICE_ROUTES,
  type ServiceRoute,
} from '../../../packages/sdk/src/core/protocol/service-names.js';
import { WS_AGENT_PATH } from '../../../packages/sdk/src/core/protocol/ws-close.js';
import { createServerContext } from '../../../packages/dev/src/server/create-context.js';
import { ControlApi } from '../../../packages/dev/src/server/control/control-api.js';
import type { AuthKind, Route } from '../../../packages/dev/src/server/http/router.js';
import { buildRouter } from '../../../packages/dev/src/server/routes.js';
import { WS_PATH } from '../../../packages/dev/src/server/ws/frames.js';

/** The endpoints the service interface gives ("Endpoints" table and the V2 placeholders), method and path. */
const SPEC_ROUTES = [
  'POST /auth/send-code',
  'POST /auth/register',
  'POST /keys/backup',
  'POST /auth/login',
  'POST /auth/login-code',
  'POST /auth/passkey/begin',
  'POST /auth/passkey/complete',
  'POST /auth/refresh',
  'POST /auth/reset-password',
  'POST /agents/:id/token/regenerate',
  'DELETE /agents/:id/token',
  'GET /users/me/devices',
  'DELETE /users/me/devices/:device_id',
  'POST /agents/:id/connection/recover',
  'GET /agents/:agent_id/delivery-logs',
  'POST /agents/:id/messages',
  'GET /r2/:object_key',
  'GET /agents/:id/governance',
  'POST /auth/device/code',
  'POST /auth/device/verify',
  'POST /auth/device/poll',
];

/** `METHOD /path` with parameter names dropped, so `:id` and `:agent_id` compare equal. */
const shape = (method: string, path: string): string => `${method} ${path.replace(/:[a-z_]+/g, ':')}`;
const specShapes = new Set(SPEC_ROUTES.map((r) => shape(...(r.split(' ') as [string, string]))));
const AUTH_OF: Record<AuthKind, ServiceRoute['auth']> = {
  none: 'none',
  user: 'user',
  agent: 'agent',
  user_or_agent: 'member',
};

function mountedRoutes(): readonly Route[] {
  const ctx = createServerContext({ dev: true, passwordHashing: { logN: 4 }, agentTokenBcryptCost: 4 });
  return buildRouter(ctx, new ControlApi(ctx)).routes;
}

const gapRoutes = Object.entries(SERVICE_ROUTES) as [string, ServiceRoute][];
const httpGapRoutes = gapRoutes.filter(([, r]) => r !== SERVICE_ROUTES.webSocket);

describe('reference server routes and the table of names', () => {
  const routes = mountedRoutes();

  it('every mounted route is a spec path, a gap route of SERVICE_ROUTES, or under /_control or /_console', () => {
    const unexplained = routes
      .filter((r) => !r.path.startsWith('/_control/'))
      .filter((r) => r.path !== '/_console' && !r.path.startsWith('/_console/')) // dev console (docs/console.md)
      .filter((r) => !specShapes.has(shape(r.method, r.path)))
      .filter((r) => !httpGapRoutes.some(([, g]) => g.method === r.method && g.path === r.path))
      .map((r) => `${r.method} ${r.path}`);
    expect(unexplained).toEqual([]);
  });

  it.each(httpGapRoutes)('%s is mounted with the same method, path and caller', (name, gap) => {
    const mounted = routes.find((r) => r.method === gap.method && r.path === gap.path);
    expect(mounted, `${name}: ${gap.method} ${gap.path}`).toBeDefined();
    expect(AUTH_OF[mounted!.auth], name).toBe(gap.auth);
  });

  it('the table holds gaps only: no spec path, and no /_control path', () => {
    for (const [name, r] of gapRoutes) {
      expect(specShapes.has(shape(r.method, r.path)), name).toBe(false);
      expect(r.path.startsWith('/_control'), name).toBe(false);
    }
  });

  it('the WebSocket address of the server and of the SDK is the table one', () => {
    expect(CORE_ROUTES.webSocket).toMatchObject({ method: 'GET', path: '/ws' });
    expect(WS_PATH).toBe(CORE_ROUTES.webSocket.path);
    expect(WS_AGENT_PATH).toBe(CORE_ROUTES.webSocket.path);
  });
});

describe('the SDK builds gap paths with routePath(SERVICE_ROUTES.x)', () => {
  const root = join(import.meta.dirname, '..', '..', '..', 'packages');
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir)).flatMap((f) =>
      statSync(join(root, dir, f)).isDirectory()
        ? walk(join(dir, f))
        : f.endsWith('.ts')
          ? [join(dir, f)]
          : [],
    );
  const files = [
    ...['client', 'agent', 'transport', 'webhook', 'crypto'].map((d) => `sdk/src/${d}`),
    ...['cli', 'testing'].map((d) => `dev/src/${d}`),
  ].flatMap(walk);

  /** Code lines of a file (doc comments and line comments left out: examples may show paths). */
  const code = (file: string): string =>
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .filter((l) => !/^\s*(\*|\/\*\*|\/\/)/.test(l))
      .join('\n');

  const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

  /**
   * The ways code could spell a gap path by hand: quoted, a template with
   * `${…}` for parameters, or (for `/agents/:id/…`) the tail after a variable
   * holding the agent's own prefix (`${self}/keys/challenge`).
   */
  function literalForms(path: string): RegExp[] {
    const template = (p: string): string => escape(p).replace(/:[a-z_]+/g, '\\$\\{[^}]+\\}');
    const forms = [new RegExp(`['"\`]${escape(path)}['"\`]`), new RegExp(`\`${template(path)}\``)];
    const tail = /^\/agents\/:id(\/.+)$/.exec(path)?.[1];
    if (tail !== undefined) forms.push(new RegExp(`\`\\$\\{[^}]+\\}${template(tail)}\``));
    return forms;
  }

  it('found some SDK sources', () => expect(files.length).toBeGreaterThan(50));

  // A path the interface gives for another method (POST /keys/backup) may be spelled out, and
  // so may the prefix of the interface's paths (`/agents/${id}` of `/agents/:id/messages`).
  const checkable = httpGapRoutes.filter(
    ([, r]) =>
      !SPEC_ROUTES.some(
        (s) => s.endsWith(` ${r.path}`) || (r.path.includes(':') && s.includes(` ${r.path}/`)),
      ),
  );

  it.each(checkable)(
    '%s is never spelled as a literal in the SDK (client, agent, transport, webhook, crypto) or the CLI and testing kit',
    (_name, route) => {
      const hits = files.filter((f) => literalForms(route.path).some((re) => re.test(code(f))));
      expect(hits).toEqual([]);
    },
  );
});
