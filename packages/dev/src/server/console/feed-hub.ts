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

/**
 * What a user's feed tells: an agent of the user was created (by the user's
 * API, the control API or `ams dev bootstrap`), so the page lists the agents
 * again; or an agent asked the user something (a data grant, or its owner a
 * manifest change), so the page reads that agent's requests again.
 */
export type UserNews = 'agent_created' | 'requests_changed';

/** One event of a user's feed (wire names). The first event is a `snapshot`. */
export interface UserFeedEvent {
  readonly type: 'snapshot' | UserNews;
  readonly user_id: string;
  /** Server clock (virtual under `--virtual-time`), ISO 8601. */
  readonly at: string;
  readonly agent_id?: string;
}

/** Listeners by key (an agent id, a user id). */
class Watchers<E> {
  readonly #byKey = new Map<string, Set<(event: E) => void>>();

  has(key: string): boolean {
    return this.#byKey.has(key);
  }

  get size(): number {
    let n = 0;
    for (const set of this.#byKey.values()) n += set.size;
    return n;
  }

  subscribe(key: string, listener: (event: E) => void): () => void {
    let set = this.#byKey.get(key);
    if (set === undefined) {
      set = new Set();
      this.#byKey.set(key, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#byKey.get(key) === set) this.#byKey.delete(key);
    };
  }

  publish(key: string, event: E): void {
    for (const listener of this.#byKey.get(key) ?? []) listener(event);
  }
}

/** Who watches which agent's feed, and which user's. */
export class ConsoleFeed {
  readonly #agents = new Watchers<FeedEvent>();
  readonly #users = new Watchers<UserFeedEvent>();

  /** True when some page watches `agentId` (events are built only then). */
  watching(agentId: string): boolean {
    return this.#agents.has(agentId);
  }

  /** Number of open feeds (agents and users). */
  get size(): number {
    return this.#agents.size + this.#users.size;
  }

  /** Calls `listener` with each event of `agentId`; returns the unsubscribe. */
  subscribe(agentId: string, listener: (event: FeedEvent) => void): () => void {
    return this.#agents.subscribe(agentId, listener);
  }

  /** Sends an event to the watchers of its agent. */
  publish(event: FeedEvent): void {
    this.#agents.publish(event.agent_id, event);
  }

  /** Calls `listener` with each event of `userId`'s feed; returns the unsubscribe. */
  subscribeUser(userId: string, listener: (event: UserFeedEvent) => void): () => void {
    return this.#users.subscribe(userId, listener);
  }

  /** True when some page watches some user's feed (so a route may look the user up). */
  watchingAnyUser(): boolean {
    return this.#users.size > 0;
  }

  /** Tells `userId`'s feed that `news` happened about `agentId` (built only when a page watches). */
  tellUser(userId: string, news: UserNews, agentId: string, atMs: number): void {
    if (!this.#users.has(userId)) return;
    const event: UserFeedEvent = {
      type: news,
      user_id: userId,
      at: new Date(atMs).toISOString(),
      agent_id: agentId,
    };
    this.#users.publish(userId, event);
  }
}
