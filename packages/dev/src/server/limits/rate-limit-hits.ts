/**
 * How many 429 answers the server gave about each agent, and the last one's
 * code and time: the dev console's "rate-limit hits". Counted where the
 * request handler answers (`app.ts`), so every limit is covered without each
 * route knowing about it. In memory; a dev view, not part of the interface.
 *
 * @module
 */
import type { ServerResponse } from '../http/types.js';

/** The last 429 of an agent. */
export interface RateLimitHit {
  /** Catalogue code of the answer, e.g. `MESSAGE_RATE_LIMITED`. */
  readonly code: string;
  /** Server time of the answer, ms since the epoch. */
  readonly atMs: number;
}

/** An agent's 429 answers so far. */
export interface RateLimitHitCount {
  readonly count: number;
  readonly last: RateLimitHit | undefined;
}

/** The code of an error answer (`{ error: { code } }`), or `undefined`. */
export function errorCodeOf(res: ServerResponse): string | undefined {
  const body = res.body as { error?: { code?: unknown } } | undefined;
  const code = body?.error?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Per-agent counters of 429 answers. */
export class RateLimitHits {
  readonly #byAgent = new Map<string, { count: number; last: RateLimitHit }>();

  /** Counts one 429 answer about `agentId`. */
  record(agentId: string, code: string, atMs: number): void {
    const known = this.#byAgent.get(agentId);
    this.#byAgent.set(agentId, { count: (known?.count ?? 0) + 1, last: { code, atMs } });
  }

  /** Counts `res` when it is a 429 about an agent; other answers are ignored. */
  observe(res: ServerResponse, agentId: string | undefined, atMs: number): void {
    if (res.status !== 429 || agentId === undefined) return;
    this.record(agentId, errorCodeOf(res) ?? 'RATE_LIMITED', atMs);
  }

  /** The agent's count (0 and no last hit when it never hit a limit). */
  of(agentId: string): RateLimitHitCount {
    const known = this.#byAgent.get(agentId);
    return { count: known?.count ?? 0, last: known?.last };
  }
}
