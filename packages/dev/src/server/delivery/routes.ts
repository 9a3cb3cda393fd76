/**
 * The delivery endpoints of the reference server (agent token, own agent only):
 *
 * - `POST /agents/:id/connection/recover` → `{ pending_count, connection_status }`
 * - `GET /agents/:agent_id/delivery-logs?limit=` → delivery log entries, newest first
 *
 * @module
 */
import { invalidField } from '../http/failure.js';
import { ok } from '../http/respond.js';
import { defineRoute, type Route } from '../http/router.js';

/** Bounds of `limit` on `GET /agents/:agent_id/delivery-logs` (the spec does not show them). */
export const DELIVERY_LOGS_LIMIT = Object.freeze({
  /** Entries returned when `limit` is absent. */
  default: 50,
  min: 1,
  max: 500,
});

/**
 * Reads `limit`: absent → the default; otherwise one decimal integer from
 * 1 to 500.
 *
 * @throws {@link ServerFailure} VALIDATION_ERROR `{ field: 'limit', reason, min, max }`.
 */
export function parseLogsLimit(query: URLSearchParams): number {
  const values = query.getAll('limit');
  const bounds = { min: DELIVERY_LOGS_LIMIT.min, max: DELIVERY_LOGS_LIMIT.max };
  if (values.length === 0) return DELIVERY_LOGS_LIMIT.default;
  const text = values[0]!;
  if (values.length > 1) throw invalidField('limit', 'invalid', bounds, "Query 'limit' must be given once.");
  if (!/^\d+$/.test(text)) {
    throw invalidField('limit', 'invalid_format', bounds, "Query 'limit' must be an integer from 1 to 500.");
  }
  const limit = Number(text);
  if (limit < DELIVERY_LOGS_LIMIT.min) throw invalidField('limit', 'too_small', bounds);
  if (limit > DELIVERY_LOGS_LIMIT.max) throw invalidField('limit', 'too_big', bounds);
  return limit;
}

/** The delivery routes (`auth: 'agent'`; the path's agent must be the token's). */
export const deliveryRoutes: readonly Route[] = [
  defineRoute({
    method: 'POST',
    path: '/agents/:id/connection/recover',
    auth: 'agent',
    handler: ({ ctx, principal }) => {
      // The router already refused a path naming another agent (FORBIDDEN).
      const { agentId } = principal;
      const { pendingCount } = ctx.delivery.recover(agentId);
      return ok({ pending_count: pendingCount, connection_status: ctx.delivery.connectionStatus(agentId) });
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/agents/:agent_id/delivery-logs',
    auth: 'agent',
    handler: ({ ctx, req, principal }) => {
      const limit = parseLogsLimit(req.query);
      return ok(ctx.delivery.logs(principal.agentId, limit));
    },
  }),
];
