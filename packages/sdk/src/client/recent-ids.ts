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
  /** Key → expiry. */
  readonly #seen = new Map<string, number>();
  /** Keys and expiries in insertion (= expiry) order, from `#head` on. */
  #keys: string[] = [];
  #untils: number[] = [];
  #head = 0;

  constructor(clock: Clock, memoryMs = MESSAGE_DEDUP_MEMORY_MS, max = RECENT_IDS_MAX) {
    this.#clock = clock;
    this.#memoryMs = memoryMs;
    this.#max = max;
  }

  /** Records the message; false when it was already recorded (a duplicate). */
  add(senderId: string, messageId: string): boolean {
    const now = this.#clock.now();
    this.#prune(now);
    const key = `${senderId}\u0000${messageId}`;
    const until = this.#seen.get(key);
    if (until !== undefined && until > now) return false;
    const expiry = now + this.#memoryMs;
    this.#seen.set(key, expiry);
    this.#keys.push(key);
    this.#untils.push(expiry);
    return true;
  }

  /** Ids currently remembered. */
  get size(): number {
    return this.#seen.size;
  }

  /** Drops expired ids, and the oldest while full. */
  #prune(now: number): void {
    while (this.#head < this.#keys.length) {
      const until = this.#untils[this.#head]!;
      if (until > now && this.#seen.size < this.#max) break;
      const key = this.#keys[this.#head]!;
      // A key re-added after it expired has a newer entry further on: keep that one.
      if (this.#seen.get(key) === until) this.#seen.delete(key);
      this.#head += 1;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#keys.length) {
      this.#keys = this.#keys.slice(this.#head);
      this.#untils = this.#untils.slice(this.#head);
      this.#head = 0;
    }
  }
}
