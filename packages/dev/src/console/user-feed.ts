/**
 * The signed-in user's dev feed (`GET /_control/users/:id/feed`, Server-Sent
 * Events): what the user WebSocket never says. An agent created for the user
 * elsewhere (`ams dev bootstrap`, another page, a test's control call): the
 * page lists its agents again. An agent asked something (a grant, a manifest
 * change): the page reads that agent's requests again.
 *
 * @module
 */

/** A user-feed event the page acts on (wire names). */
export interface UserFeedEvent {
  readonly type: 'snapshot' | 'agent_created' | 'requests_changed';
  readonly user_id: string;
  readonly agent_id?: string;
}

/** The event of a feed message, or `undefined` for anything else (never throws). */
export function parseUserFeedEvent(data: unknown): UserFeedEvent | undefined {
  if (typeof data !== 'string') return undefined;
  try {
    const e = JSON.parse(data) as Partial<UserFeedEvent> | null;
    if (typeof e?.user_id !== 'string') return undefined;
    return e.type === 'snapshot' || e.type === 'agent_created' || e.type === 'requests_changed'
      ? (e as UserFeedEvent)
      : undefined;
  } catch {
    return undefined;
  }
}

/** What the page does with the news of its user's feed. */
export interface UserFeedHandlers {
  /** An agent of the user was created. */
  agentsChanged(): void;
  /** `agentId` asked the user something new (a grant request, a manifest change). */
  requestsChanged(agentId: string): void;
}

/** Watches one user's feed at a time. */
export class UserFeed {
  #source: EventSource | undefined;
  #userId: string | undefined;
  readonly #on: UserFeedHandlers;

  constructor(handlers: UserFeedHandlers) {
    this.#on = handlers;
  }

  /** Watches `userId` (closing the previous user's feed); nothing when it is already watched. */
  watch(userId: string): void {
    if (userId === this.#userId && this.#source !== undefined) return;
    this.#source?.close();
    this.#userId = userId;
    const source = new EventSource(`/_control/users/${encodeURIComponent(userId)}/feed`);
    this.#source = source;
    source.addEventListener('message', (m) => {
      const e = parseUserFeedEvent(m.data);
      if (e === undefined || e.user_id !== this.#userId) return;
      if (e.type === 'agent_created') this.#on.agentsChanged();
      else if (e.type === 'requests_changed' && e.agent_id !== undefined)
        this.#on.requestsChanged(e.agent_id);
    });
  }
}
