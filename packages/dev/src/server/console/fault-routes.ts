/**
 * The console's "break things" routes beyond webhook failures: replay a
 * delivery (same delivery id: the receiver should skip it as a duplicate),
 * read a delivery's webhook attempts, and drop the agent's WebSocket (close
 * 1001, as a server going away: the agent reconnects on its own). Dev mode on
 * loopback only, like every console route.
 *
 * | Method | Path | data |
 * |---|---|---|
 * | POST | /_control/agents/:id/deliveries/:delivery_id/replay | `{ agent_id, delivery_id, replayed: true }` |
 * | GET | /_control/agents/:id/deliveries/:delivery_id/attempts | `[{ attempt, started_at, status_code, outcome, error_class, latency_ms, next_attempt_at }]` |
 * | POST | /_control/agents/:id/websocket/drop | `{ agent_id, closed }` (connections closed) |
 * | GET | /_control/agents/:id/deliveries/pending | `[{ delivery_id, event_type, state, attempt_count, created_at }]` (not yet delivered or failed) |
 * | GET | /_control/agents/:id/deliveries/:delivery_id | one delivery as the service handled it (the inspector: envelope, metadata, attempts, outcomes) |
 * | GET | /_control/conversations/:id/deliveries | the conversation's recent deliveries to every agent, in queue order (the timeline) |
 *
 * @module
 */
import { WS_CLOSE } from '../ws/frames.js';
import { fail } from '../http/failure.js';
import { defineRoute, type Route } from '../http/router.js';
import { ok } from '../http/respond.js';
import type { ServerContext } from '../context.js';

function agentId(ctx: ServerContext, params: Readonly<Record<string, string>>): string {
  const id = params['id']!;
  if (!ctx.agentIds.has(id)) throw fail('AGENT_NOT_FOUND', 'No such agent.');
  return id;
}

/** The close reason the agent sees when the console drops its WebSocket. */
export const DROPPED_REASON = 'dropped_by_console';

/** Replay, attempts, WebSocket drop, pending deliveries, the inspector's delivery, a conversation's timeline. */
export function faultRoutes(): Route[] {
  const replay = defineRoute({
    method: 'POST',
    path: '/_control/agents/:id/deliveries/:delivery_id/replay',
    auth: 'none',
    handler({ ctx, params }) {
      const id = agentId(ctx, params);
      const deliveryId = params['delivery_id']!;
      if (!ctx.delivery.replay(id, deliveryId)) {
        throw fail(
          'NOT_FOUND',
          'No replayable delivery with this id: unknown, too old, or still queued (not yet delivered or failed).',
          { reason: 'delivery_not_replayable' },
        );
      }
      return ok({ agent_id: id, delivery_id: deliveryId, replayed: true });
    },
  });
  const attempts = defineRoute({
    method: 'GET',
    path: '/_control/agents/:id/deliveries/:delivery_id/attempts',
    auth: 'none',
    handler({ ctx, params }) {
      const id = agentId(ctx, params);
      return ok(ctx.delivery.attempts(id, params['delivery_id']!));
    },
  });
  const drop = defineRoute({
    method: 'POST',
    path: '/_control/agents/:id/websocket/drop',
    auth: 'none',
    handler({ ctx, params }) {
      const id = agentId(ctx, params);
      const closed = ctx.agentSockets.close(id, WS_CLOSE.GOING_AWAY, DROPPED_REASON);
      return ok({ agent_id: id, closed });
    },
  });
  const pending = defineRoute({
    method: 'GET',
    path: '/_control/agents/:id/deliveries/pending',
    auth: 'none',
    handler({ ctx, params }) {
      return ok(ctx.delivery.pending(agentId(ctx, params)));
    },
  });
  const inspect = defineRoute({
    method: 'GET',
    path: '/_control/agents/:id/deliveries/:delivery_id',
    auth: 'none',
    handler({ ctx, params }) {
      const view = ctx.delivery.inspect(agentId(ctx, params), params['delivery_id']!);
      if (view === undefined) {
        throw fail('NOT_FOUND', 'No recent delivery with this id for this agent (the last 1 000 are kept).', {
          reason: 'delivery_not_kept',
        });
      }
      return ok(view);
    },
  });
  const timeline = defineRoute({
    method: 'GET',
    path: '/_control/conversations/:id/deliveries',
    auth: 'none',
    handler({ ctx, params }) {
      return ok(ctx.delivery.conversationDeliveries(params['id']!));
    },
  });
  return [replay, attempts, drop, pending, inspect, timeline];
}
