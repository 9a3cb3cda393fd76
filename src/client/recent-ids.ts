/**
 * The UserClient's memory of the messages it delivered live, so a message
 * the service sends twice (a reconnect, a hostile relay) is emitted once.
 * Ids are keyed by signed sender and message id and remembered for
 * `MESSAGE_DEDUP_MEMORY_MS` (25 h): longer than any envelope stays inside the
 * acceptance window, after which the `stale` check refuses it instead.
 * In memory, bounded; the oldest ids are dropped first when full.
 *
 * @module
 */
import type { Clock } from '../core/clock.js';
import { MESSAGE_DEDUP_MEMORY_MS } from '../crypto/freshness.js';

/** Most ids remembered at once. */
export const RECENT_IDS_MAX = 100_000;

/** Remembers handled (sender, message id) pairs. */
export class RecentMessageIds {
  readonly #clock: Clock;
  readonly #memoryMs: number;
  readonly #max: number;
  /** Key → expiry; insertion order is expiry order (one memory length for all). */
  readonly #seen = new Map<string, number>();

  constructor(clock: Clock, memoryMs = MESSAGE_DEDUP_MEMORY_MS, max = RECENT_IDS_MAX) {
    this.#clock = clock;
    this.#memoryMs = memoryMs;
    this.#max = max;
  }

  /** Records the message; false when it was already recorded (a duplicate). */
  add(senderId: string, messageId: string): boolean {
    const now = this.#clock.now();
    for (const [key, until] of this.#seen) {
      if (until > now && this.#seen.size < this.#max) break;
      this.#seen.delete(key);
    }
    const key = `${senderId}\u0000${messageId}`;
    const until = this.#seen.get(key);
    if (until !== undefined && until > now) return false;
    this.#seen.set(key, now + this.#memoryMs);
    return true;
  }

  /** Ids currently remembered. */
  get size(): number {
    return this.#seen.size;
  }
}
