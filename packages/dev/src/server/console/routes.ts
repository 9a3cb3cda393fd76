/**
 * The dev console's routes: the page, its style sheet and script under
 * `/_console/`, and two read-only control routes the page uses to show the
 * service's side of an agent without holding the agent's token.
 * Registered only in dev mode on a loopback host (see `buildRouter`).
 *
 * | Method | Path | data |
 * |---|---|---|
 * | GET | /_console/ | the page (HTML) |
 * | GET | /_console/console.css, /_console/console.js | the style sheet, the script |
 * | GET | /_control/agents/:id/service | `{ agent_id, connection_status, delivery_mode, websocket_connections, pending_count, injected_failures_left, governance_level, token_active, token_grace_until, rate_limit_hits, last_rate_limit }` |
 * | GET | /_control/agents/:id/delivery-logs | `?limit=`: the agent's delivery log, newest first |
 * | POST | /_control/agents/:id/recover | | `{ agent_id, pending_count, connection_status }` (as the agent's own `POST /agents/:id/connection/recover`) |
 * | POST | /_control/agents/:id/webhook-faults | `{ status, count }`: the next `count` webhook deliveries are answered `status` (or time out: `'timeout'`) | `{ agent_id, status, remaining }` |
 *
 * And the routes of `fault-routes.ts` (replay, attempts, pending, WebSocket
 * drop) and `feed.ts` (`GET /_control/agents/:id/feed`, the live feed as
 * Server-Sent Events).
 *
 * @module
 */
import { z } from 'zod';
import { utf8 } from 'agent-messaging-sdk/protocol';
import { agentView } from '../agents/records.js';
import { parseLogsLimit } from '../delivery/routes.js';
import { fail } from '../http/failure.js';
import { defineRoute, type Route } from '../http/router.js';
import { ok } from '../http/respond.js';
import type { ServerResponse } from '../http/types.js';
import type { ServerContext } from '../context.js';
import { WEBHOOK_FAULT_STATUSES } from '../delivery/faults.js';
import { consoleScript } from './assets.js';
import { faultRoutes } from './fault-routes.js';
import { feedRoute, userFeedRoute } from './feed.js';
import { CONSOLE_CSS, CONSOLE_HTML, CONSOLE_PATH } from './page.js';

/** Same-origin only: no inline script or style, no framing, no third-party connection. */
const CSP =
  "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function asset(body: Uint8Array, type: string): ServerResponse {
  return {
    status: 200,
    headers: {
      'content-type': type,
      'cache-control': 'no-store',
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    },
    body,
  };
}

const html = utf8(CONSOLE_HTML);
const css = utf8(CONSOLE_CSS);

function pageRoutes(): Route[] {
  const page = (path: string) =>
    defineRoute({
      method: 'GET',
      path,
      auth: 'none',
      handler: () => asset(html, 'text/html; charset=utf-8'),
    });
  const style = defineRoute({
    method: 'GET',
    path: `${CONSOLE_PATH}console.css`,
    auth: 'none',
    handler: () => asset(css, 'text/css; charset=utf-8'),
  });
  const script = defineRoute({
    method: 'GET',
    path: `${CONSOLE_PATH}console.js`,
    auth: 'none',
    handler() {
      const js = consoleScript();
      if (js === undefined) {
        throw fail('NOT_FOUND', 'The console script was not built: run `npm run build`.', {
          reason: 'console_not_built',
        });
      }
      return asset(js, 'text/javascript; charset=utf-8');
    },
  });
  return [page(CONSOLE_PATH), page(CONSOLE_PATH.slice(0, -1)), style, script];
}

function serviceRoutes(): Route[] {
  const service = defineRoute({
    method: 'GET',
    path: '/_control/agents/:id/service',
    auth: 'none',
    async handler({ ctx, params }) {
      const id = params['id']!;
      const agent = ctx.agentIds.has(id) ? await ctx.store.agents.get(id) : undefined;
      if (agent === undefined) throw fail('AGENT_NOT_FOUND', 'No such agent.');
      const view = agentView(ctx, agent);
      return ok({
        agent_id: id,
        connection_status: view.connection_status,
        delivery_mode: view.delivery_mode,
        websocket_connections: ctx.agentSockets.connections(id).length,
        pending_count: view.pending_count,
        injected_failures_left: faultsLeft(ctx, id),
        governance_level: view.governance.level,
        token_active: view.token_status.active,
        token_grace_until: view.token_status.grace_until ?? 'none',
        ...rateLimitFields(ctx, id),
      });
    },
  });
  const logs = defineRoute({
    method: 'GET',
    path: '/_control/agents/:id/delivery-logs',
    auth: 'none',
    handler({ ctx, params, req }) {
      const id = params['id']!;
      if (!ctx.agentIds.has(id)) throw fail('AGENT_NOT_FOUND', 'No such agent.');
      return ok(ctx.delivery.logs(id, parseLogsLimit(req.query)));
    },
  });
  const faults = defineRoute({
    method: 'POST',
    path: '/_control/agents/:id/webhook-faults',
    auth: 'none',
    body: z.strictObject({
      status: z.union(WEBHOOK_FAULT_STATUSES.map((n) => z.literal(n))),
      count: z.int().min(0).max(MAX_FAULTS),
    }),
    handler({ ctx, params, body }) {
      const id = params['id']!;
      if (!ctx.agentIds.has(id)) throw fail('AGENT_NOT_FOUND', 'No such agent.');
      const hook = ctx.delivery.getWebhook(id);
      if (hook === undefined) {
        throw fail('VALIDATION_ERROR', 'This agent has no webhook (it is in WebSocket mode).', {
          reason: 'no_webhook',
        });
      }
      ctx.webhookFaults.set(hook.url, body.status, body.count);
      return ok({ agent_id: id, status: body.status, remaining: ctx.webhookFaults.remaining(hook.url) });
    },
  });
  const recover = defineRoute({
    method: 'POST',
    path: '/_control/agents/:id/recover',
    auth: 'none',
    handler({ ctx, params }) {
      const id = params['id']!;
      if (!ctx.agentIds.has(id)) throw fail('AGENT_NOT_FOUND', 'No such agent.');
      const { pendingCount } = ctx.delivery.recover(id);
      return ok({
        agent_id: id,
        pending_count: pendingCount,
        connection_status: ctx.delivery.connectionStatus(id),
      });
    },
  });
  return [service, logs, faults, recover];
}

/** The agent's 429 answers so far: `rate_limit_hits`, and `last_rate_limit` as `CODE at hh:mm:ss` (server time, UTC). */
function rateLimitFields(ctx: ServerContext, agentId: string) {
  const { count, last } = ctx.rateLimitHits.of(agentId);
  const at = last === undefined ? '' : new Date(last.atMs).toISOString().slice(11, 19);
  return { rate_limit_hits: count, last_rate_limit: last === undefined ? 'none' : `${last.code} at ${at}` };
}

/** Most injected failures at once (the retry schedule has far fewer attempts). */
const MAX_FAULTS = 100;

function faultsLeft(ctx: ServerContext, agentId: string): number {
  const hook = ctx.delivery.getWebhook(agentId);
  return hook === undefined ? 0 : ctx.webhookFaults.remaining(hook.url);
}

/** True for a host name the server can bind on loopback only. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** True when the server serves the console: dev mode on a loopback host, never otherwise. */
export function servesConsole(options: { readonly dev: boolean; readonly host: string }): boolean {
  return options.dev && isLoopbackHost(options.host);
}

/** The console's routes (the page and its read-only control routes). */
export function consoleRoutes(): readonly Route[] {
  return [...pageRoutes(), ...serviceRoutes(), ...faultRoutes(), feedRoute(), userFeedRoute()];
}
