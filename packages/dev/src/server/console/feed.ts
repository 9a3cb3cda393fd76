/**
 * The dev console's live feed: the service side of one agent, pushed to the
 * page as Server-Sent Events (`GET /_control/agents/:id/feed`,
 * `text/event-stream`) as the delivery engine reports it (a delivery queued,
 * an attempt started or finished, delivered / failed / unreachable, requeued,
 * recovered, the agent's WebSocket connected or closed). Each event carries
 * ids, the attempt's detail and the agent's counts: never a token, a webhook
 * secret or a body. Dev mode on loopback only, like every console route.
 *
 * Wire format: one `data:` line of JSON per event (no `event:` name), the
 * first being a `snapshot`:
 *
 * ```
 * retry: 1000
 *
 * data: {"type":"snapshot","agent_id":"…","at":"…","connection_status":"ready","pending_count":0,"websocket_connections":1}
 *
 * data: {"type":"attempt_finished","agent_id":"…","at":"…","delivery_id":"…","attempt":{"attempt":1,…},"connection_status":"ready","pending_count":1,"websocket_connections":0}
 * ```
 *
 * @module
 */
import { utf8 } from 'agent-messaging-sdk/protocol';
import { IdentifierSchema } from 'agent-messaging-sdk/protocol';
import type { DeliveryObservation } from '../delivery/observer.js';
import { fail } from '../http/failure.js';
import { defineRoute, type Route } from '../http/router.js';
import type { ServerContext } from '../context.js';
import { FEED_BACKLOG_MAX, type FeedEvent, type UserFeedEvent } from './feed-hub.js';

function counts(ctx: ServerContext, agentId: string) {
  return {
    connection_status: ctx.delivery.connectionStatus(agentId),
    pending_count: ctx.delivery.pendingCount(agentId),
    websocket_connections: ctx.agentSockets.connections(agentId).length,
  };
}

/** The feed event of an engine observation (attempt detail and counts read from the engine now). */
export function feedEvent(ctx: ServerContext, o: DeliveryObservation): FeedEvent {
  const attempt =
    o.deliveryId !== undefined && (o.change === 'attempt_started' || o.change === 'attempt_finished')
      ? ctx.delivery.attempts(o.agentId, o.deliveryId).at(-1)
      : undefined;
  return {
    type: o.change,
    agent_id: o.agentId,
    at: new Date(ctx.clock.now()).toISOString(),
    ...(o.deliveryId === undefined ? {} : { delivery_id: o.deliveryId }),
    ...(o.eventType === undefined ? {} : { event_type: o.eventType }),
    ...(attempt === undefined ? {} : { attempt }),
    ...counts(ctx, o.agentId),
  };
}

/** Publishes an observation when a page watches its agent. */
export function observeForFeed(ctx: ServerContext, o: DeliveryObservation): void {
  if (ctx.consoleFeed.watching(o.agentId)) ctx.consoleFeed.publish(feedEvent(ctx, o));
}

/** One Server-Sent Event: a `data:` line of JSON (JSON has no raw newline). */
export function sseChunk(event: FeedEvent | UserFeedEvent): Uint8Array {
  return utf8(`data: ${JSON.stringify(event)}\n\n`);
}

/**
 * The feed as a byte stream: the first chunk, then each event until the page
 * goes away (the binding calls `return()`) or falls {@link FEED_BACKLOG_MAX}
 * events behind.
 */
function feedStream(
  first: Uint8Array,
  subscribe: (push: (chunk: Uint8Array) => void) => () => void,
): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
      const backlog: Uint8Array[] = [first];
      let done = false;
      let wake: (() => void) | undefined;
      const unsubscribe = subscribe((chunk) => {
        if (done) return;
        if (backlog.length >= FEED_BACKLOG_MAX) finish();
        else backlog.push(chunk);
        wake?.();
      });
      function finish(): void {
        done = true;
        unsubscribe();
      }
      return {
        async next() {
          while (backlog.length === 0 && !done) await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          const chunk = backlog.shift();
          return chunk === undefined ? { done: true, value: undefined } : { done: false, value: chunk };
        },
        return() {
          finish();
          backlog.length = 0;
          wake?.();
          return Promise.resolve({ done: true, value: undefined });
        },
      };
    },
  };
}

/** The answer of a feed route: `first` (with the reconnect delay), then what `subscribe` pushes. */
function sseAnswer(
  first: FeedEvent | UserFeedEvent,
  subscribe: (push: (chunk: Uint8Array) => void) => () => void,
) {
  const opening = utf8(`retry: 1000\n\n${new TextDecoder().decode(sseChunk(first))}`);
  return {
    status: 200,
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    },
    stream: feedStream(opening, subscribe),
  };
}

function checkedId(id: string, what: string): string {
  if (!IdentifierSchema.safeParse(id).success)
    throw fail('VALIDATION_ERROR', `The ${what} id is not a valid identifier.`, { field: 'id' });
  return id;
}

/** `GET /_control/agents/:id/feed`. */
export function feedRoute(): Route {
  return defineRoute({
    method: 'GET',
    path: '/_control/agents/:id/feed',
    auth: 'none',
    handler({ ctx, params }) {
      const id = checkedId(params['id']!, 'agent');
      if (!ctx.agentIds.has(id)) throw fail('AGENT_NOT_FOUND', 'No such agent.');
      const snapshot: FeedEvent = {
        type: 'snapshot',
        agent_id: id,
        at: new Date(ctx.clock.now()).toISOString(),
        ...counts(ctx, id),
      };
      return sseAnswer(snapshot, (push) => ctx.consoleFeed.subscribe(id, (e) => push(sseChunk(e))));
    },
  });
}

/**
 * `GET /_control/users/:id/feed`: the user's own changes a page cannot learn
 * from the user WebSocket (an agent created for the user elsewhere).
 */
export function userFeedRoute(): Route {
  return defineRoute({
    method: 'GET',
    path: '/_control/users/:id/feed',
    auth: 'none',
    async handler({ ctx, params }) {
      const id = checkedId(params['id']!, 'user');
      if ((await ctx.store.users.byId(id)) === undefined) throw fail('USER_NOT_FOUND', 'No such user.');
      const snapshot: UserFeedEvent = {
        type: 'snapshot',
        user_id: id,
        at: new Date(ctx.clock.now()).toISOString(),
      };
      return sseAnswer(snapshot, (push) => ctx.consoleFeed.subscribeUser(id, (e) => push(sseChunk(e))));
    },
  });
}
