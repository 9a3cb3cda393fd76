/**
 * `GET /r2/<object_key>`: the ciphertext of an oversize delivery, for the
 * agent it was stored for only, at most 5 requests per second per agent
 * (429 RATE_LIMITED with Retry-After and `params.retry_after_ms`).
 *
 * An unknown, expired or other agent's key is the same 404 NOT_FOUND, so a
 * key's existence is never revealed to another agent.
 *
 * @module
 */
import { fail } from '../http/failure.js';
import { defineRoute, type Route } from '../http/router.js';

/** The object routes. */
export const objectRoutes: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/r2/:object_key',
    auth: 'agent',
    // Counted before the lookup: every authenticated fetch uses the agent's budget.
    guard: ({ ctx, principal }) => ctx.limits.enforce('objects', principal.agentId),
    handler: ({ ctx, params, principal }) => {
      const object = ctx.delivery.getObject(params['object_key'] ?? '');
      if (object === undefined || object.agentId !== principal.agentId) {
        throw fail('NOT_FOUND', 'No such object.');
      }
      return {
        status: 200,
        headers: {
          'content-type': object.contentType,
          'cache-control': 'private, no-store',
          'x-content-type-options': 'nosniff',
        },
        body: object.bytes,
      };
    },
  }),
];
