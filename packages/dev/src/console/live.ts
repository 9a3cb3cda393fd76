/**
 * The console's live view of the service side: the selected agent's feed
 * (`GET /_control/agents/:id/feed`, Server-Sent Events, pushed by the server
 * as deliveries and connections change; the browser's EventSource reconnects
 * when the server restarts) and a coalescer that turns a burst of events into
 * one re-render per animation frame. No timer polls anything.
 *
 * @module
 */

/** One event of the feed (see `packages/dev/src/server/console/feed.ts`). */
export interface FeedEvent {
  readonly type: string;
  readonly agent_id: string;
  readonly at: string;
  readonly delivery_id?: string;
  readonly event_type?: string;
  readonly connection_status: string;
  readonly pending_count: number;
  readonly websocket_connections: number;
}

/** The feed's state, as the page shows it. */
export type FeedState = 'off' | 'connecting' | 'live' | 'reconnecting';

/** What the feed tells the page. */
export interface FeedHandlers {
  event(e: FeedEvent): void;
  state(s: FeedState, agentId: string | undefined): void;
}

/** Parses one `data:` payload; undefined for anything that is not a feed event. */
export function parseFeedEvent(data: unknown): FeedEvent | undefined {
  if (typeof data !== 'string') return undefined;
  try {
    const e = JSON.parse(data) as Partial<FeedEvent> | null;
    return typeof e?.type === 'string' && typeof e.agent_id === 'string' ? (e as FeedEvent) : undefined;
  } catch {
    return undefined;
  }
}

/** The feed of one agent at a time. */
export class LiveFeed {
  #source: EventSource | undefined;
  #agentId: string | undefined;
  readonly #on: FeedHandlers;

  constructor(handlers: FeedHandlers) {
    this.#on = handlers;
  }

  /** The agent watched, if any. */
  get agentId(): string | undefined {
    return this.#agentId;
  }

  /** Watches `agentId` (closing the previous agent's feed); nothing when it is already watched. */
  watch(agentId: string): void {
    if (agentId === this.#agentId && this.#source !== undefined) return;
    this.stop();
    this.#agentId = agentId;
    const source = new EventSource(`/_control/agents/${encodeURIComponent(agentId)}/feed`);
    this.#source = source;
    this.#on.state('connecting', agentId);
    source.addEventListener('open', () => this.#on.state('live', agentId));
    source.addEventListener('error', () => {
      // The browser retries by itself (`retry: 1000`) unless the answer was not a stream.
      const state = source.readyState === EventSource.CLOSED ? 'off' : 'reconnecting';
      this.#on.state(state, agentId);
    });
    source.addEventListener('message', (m) => {
      const e = parseFeedEvent(m.data);
      if (e !== undefined && e.agent_id === this.#agentId) this.#on.event(e);
    });
  }

  /** Closes the feed. */
  stop(): void {
    this.#source?.close();
    this.#source = undefined;
    this.#agentId = undefined;
    this.#on.state('off', undefined);
  }
}

/**
 * Runs `work` at most once per animation frame however often it is asked
 * for, and once more after a run when asked during it (the last state is
 * always rendered).
 */
export function coalesce(work: () => Promise<void>): () => void {
  let queued = false;
  let running = false;
  let again = false;
  const run = async (): Promise<void> => {
    queued = false;
    running = true;
    try {
      await work();
    } finally {
      running = false;
      if (again) {
        again = false;
        schedule();
      }
    }
  };
  const schedule = (): void => {
    if (running) {
      again = true;
      return;
    }
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => void run());
  };
  return schedule;
}

/** A feed state as one line of the page. */
export function feedStateLine(s: FeedState): string {
  switch (s) {
    case 'live':
      return 'feed: live';
    case 'connecting':
      return 'feed: connecting…';
    case 'reconnecting':
      return 'feed: reconnecting… (the server went away)';
    default:
      return 'feed: off';
  }
}
