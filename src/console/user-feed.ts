/**
 * The signed-in user's dev feed (`GET /_control/users/:id/feed`, Server-Sent
 * Events): what the user WebSocket never says, here an agent created for the
 * user elsewhere (`ams dev bootstrap`, another page, a test's control call).
 * The page lists its agents again on each such event.
 *
 * @module
 */

/** A user-feed event the page acts on (wire names). */
export interface UserFeedEvent {
  readonly type: 'snapshot' | 'agent_created';
  readonly user_id: string;
  readonly agent_id?: string;
}

/** The event of a feed message, or `undefined` for anything else (never throws). */
export function parseUserFeedEvent(data: unknown): UserFeedEvent | undefined {
  if (typeof data !== 'string') return undefined;
  try {
    const e = JSON.parse(data) as Partial<UserFeedEvent> | null;
    if (typeof e?.user_id !== 'string') return undefined;
    return e.type === 'snapshot' || e.type === 'agent_created' ? (e as UserFeedEvent) : undefined;
  } catch {
    return undefined;
  }
}

/** Watches one user's feed at a time. */
export class UserFeed {
  #source: EventSource | undefined;
  #userId: string | undefined;

  /** @param agentsChanged Called when an agent of the watched user was created. */
  constructor(private readonly agentsChanged: () => void) {}

  /** Watches `userId` (closing the previous user's feed); nothing when it is already watched. */
  watch(userId: string): void {
    if (userId === this.#userId && this.#source !== undefined) return;
    this.#source?.close();
    this.#userId = userId;
    const source = new EventSource(`/_control/users/${encodeURIComponent(userId)}/feed`);
    this.#source = source;
    source.addEventListener('message', (m) => {
      const e = parseUserFeedEvent(m.data);
      if (e?.type === 'agent_created' && e.user_id === this.#userId) this.agentsChanged();
    });
  }
}
