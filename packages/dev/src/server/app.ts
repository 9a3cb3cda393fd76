/**
 * The transport-independent core of the reference server: a request goes in,
 * a response comes out. Order of checks: route → authentication → body (size,
 * content type, JSON, schema) → handler. Every refusal is a catalogue error
 * object; anything unexpected is a bare 500 without detail.
 *
 * @module
 */
import { z } from 'zod';
import { redactSecrets } from 'agent-messaging-sdk/protocol';
import { authenticateAgent, requireAgentSelf } from './agents/authenticate-agent.js';
import { authenticateUser, bearerToken } from './auth/authenticate.js';
import { emitActivity } from './activity.js';
import type { ServerContext } from './context.js';
import { decodeJsonBody } from './http/body.js';
import { fail, invalidRequest, isServerFailure, ServerFailure } from './http/failure.js';
import { failureResponse, internalErrorResponse } from './http/respond.js';
import { bodyLimitOf, type Route, type Router } from './http/router.js';
import type { ResolvedServerOptions } from './options.js';
import type { AnyPrincipal, ServerRequest, ServerResponse } from './http/types.js';
import { parseBody } from './http/validation.js';

/** A request handler: the server core. */
export type RequestHandler = (req: ServerRequest) => Promise<ServerResponse>;

/** What the handler learnt about a request while answering it. */
interface Seen {
  principal?: AnyPrincipal | undefined;
  /** The agent of an `/agents/:id/…` path (e.g. its owner regenerating its token). */
  pathAgentId?: string | undefined;
}

const EMPTY_BODY = z.strictObject({});

function decodeBodyFor(route: Route, req: ServerRequest, options: ResolvedServerOptions): unknown {
  if (route.ignoreBody) return undefined;
  const decoded = decodeJsonBody(req, bodyLimitOf(route, options));
  if (route.body === undefined) {
    if (decoded.present) parseBody(EMPTY_BODY, decoded.value);
    return undefined;
  }
  if (!decoded.present) throw invalidRequest('body_required', 'This endpoint needs a JSON body.');
  return parseBody(route.body, decoded.value);
}

async function dispatch(
  ctx: ServerContext,
  router: Router,
  req: ServerRequest,
  seen: Seen,
): Promise<ServerResponse> {
  const match = router.match(req.method, req.path);
  if (match.kind === 'not_found') throw fail('NOT_FOUND', 'No such endpoint.');
  if (match.kind === 'method_not_allowed') {
    throw new ServerFailure({
      code: 'NOT_FOUND',
      message: `This endpoint does not support ${req.method}.`,
      params: { reason: 'method_not_allowed', allow: match.allow },
      headers: { allow: match.allow.join(', ') },
    });
  }
  const { route, params } = match;
  seen.pathAgentId = SELF_PATH.test(route.path) ? (params['id'] ?? params['agent_id']) : undefined;
  const principal = await authenticate(ctx, route, req, params);
  seen.principal = principal;
  if (route.guard !== undefined) await route.guard({ req, params, principal, ctx });
  const body = decodeBodyFor(route, req, ctx.options);
  return route.handle({ req, params, body, principal, ctx });
}

const SELF_PATH = /^\/agents\/:(id|agent_id)(\/|$)/;

async function authenticateAsAgent(
  ctx: ServerContext,
  route: Route,
  req: ServerRequest,
  params: Readonly<Record<string, string>>,
): Promise<AnyPrincipal> {
  // Only a path under /agents/:id names the agent; other ids (conversations, keys) are no hint.
  const self = SELF_PATH.test(route.path);
  const hint =
    route.agent.agentHint?.(params, ctx) ?? (self ? (params['id'] ?? params['agent_id']) : undefined);
  const principal = await authenticateAgent(ctx, req, {
    agentHint: hint,
    allowGoverned: route.agent.allowGoverned ?? false,
  });
  if (route.agent.selfOnly ?? self) requireAgentSelf(principal, params);
  return principal;
}

async function authenticate(
  ctx: ServerContext,
  route: Route,
  req: ServerRequest,
  params: Readonly<Record<string, string>>,
): Promise<AnyPrincipal | undefined> {
  switch (route.auth) {
    case 'none':
      return undefined;
    case 'user':
      return authenticateUser(ctx, req);
    case 'agent':
      return authenticateAsAgent(ctx, route, req, params);
    case 'user_or_agent':
      return bearerToken(req)?.startsWith('hsk_') === true
        ? authenticateAsAgent(ctx, route, req, params)
        : authenticateUser(ctx, req);
  }
}

async function answer(
  ctx: ServerContext,
  router: Router,
  req: ServerRequest,
  seen: Seen,
): Promise<ServerResponse> {
  try {
    return await dispatch(ctx, router, req, seen);
  } catch (err) {
    if (isServerFailure(err)) return failureResponse(err);
    const what = err instanceof Error ? `${err.name}: ${err.message}` : 'non-error thrown';
    ctx.logger.error(`internal error on ${req.method} ${req.path}: ${redactSecrets(what)}`);
    return internalErrorResponse();
  }
}

/**
 * Builds the core request handler over a route table.
 *
 * @example
 * ```ts
 * const handle = createRequestHandler(ctx, router);
 * const res = await handle({ method: 'GET', path: '/users/me/devices', query: new URLSearchParams(), headers: {}, body: new Uint8Array() });
 * ```
 */
export function createRequestHandler(ctx: ServerContext, router: Router): RequestHandler {
  return async (req) => {
    const started = performance.now();
    const seen: Seen = {};
    const res = await answer(ctx, router, req, seen);
    const agentId = seen.principal?.kind === 'agent' ? seen.principal.agentId : seen.pathAgentId;
    ctx.rateLimitHits.observe(res, agentId, ctx.clock.now());
    if (ctx.onActivity !== undefined) {
      emitActivity(ctx.onActivity, {
        kind: 'request',
        method: req.method,
        path: req.path,
        status: res.status,
        agentId: seen.principal?.kind === 'agent' ? seen.principal.agentId : undefined,
        durationMs: Math.round(performance.now() - started),
      });
    }
    return res;
  };
}
