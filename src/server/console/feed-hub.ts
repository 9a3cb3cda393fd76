/**
 * Who watches which agent's live feed (dev console), and the shape of a feed
 * event. Kept apart from the route (`feed.ts`) so the server context can hold
 * the hub without importing the router.
 *
 * @module
 */
import type { DeliveryAttempt } from '../delivery/attempt-log.js';
import type { DeliveryChange } from '../delivery/observer.js';

/** One event of the feed (wire names). */
export interface FeedEvent {
  readonly type: DeliveryChange | 'snapshot';
  readonly agent_id: string;
  /** Server clock (virtual under `--virtual-time`), ISO 8601. */
  readonly at: string;
  readonly delivery_id?: string;
  /** The event type of a `queued` delivery. */
  readonly event_type?: string;
  /** The attempt an `attempt_started` / `attempt_finished` is about (the delivery's latest). */
  readonly attempt?: DeliveryAttempt;
  readonly connection_status: 'ready' | 'unreachable';
  readonly pending_count: number;
  readonly websocket_connections: number;
}

/** Events waiting for a slow page before its feed is cut (the page reconnects and gets a snapshot). */
export const FEED_BACKLOG_MAX = 1_000;

/** Who watches which agent's feed. */
export class ConsoleFeed {
  readonly #watchers = new Map<string, Set<(event: FeedEvent) => void>>();

  /** True when some page watches `agentId` (events are built only then). */
  watching(agentId: string): boolean {
    return this.#watchers.has(agentId);
  }

  /** Number of open feeds (all agents). */
  get size(): number {
    let n = 0;
    for (const set of this.#watchers.values()) n += set.size;
    return n;
  }

  /** Calls `listener` with each event of `agentId`; returns the unsubscribe. */
  subscribe(agentId: string, listener: (event: FeedEvent) => void): () => void {
    let set = this.#watchers.get(agentId);
    if (set === undefined) {
      set = new Set();
      this.#watchers.set(agentId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#watchers.get(agentId) === set) this.#watchers.delete(agentId);
    };
  }

  /** Sends an event to the watchers of its agent. */
  publish(event: FeedEvent): void {
    for (const listener of this.#watchers.get(event.agent_id) ?? []) listener(event);
  }
}
