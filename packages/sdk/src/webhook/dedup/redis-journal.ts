/**
 * What one process wrote to the Redis de-duplication store lately: its
 * completion marks and the claims it holds, with their expiry. When Redis
 * loses its keys (restarted without persistence, flushed, failed over to an
 * empty replica), each copy writes these back before anyone claims again
 * (`redis-recovery.ts`), so an event a copy handled but whose ack had not
 * reached the service is not handled a second time when it comes again.
 *
 * Bounded in time (`journalMs` for completions; a claim until its lease
 * ends) and in size (the oldest entries are dropped first).
 *
 * @module
 */

/** One remembered key. */
interface Entry {
  /** `done`, or the token of a claim this process holds. */
  readonly value: string;
  /** When the key expires in Redis (epoch ms). */
  expiresAt: number;
  /** When this process forgets it (epoch ms). */
  readonly forgetAt: number;
}

/** A key to write back: its value and the time it has left in Redis, ms. */
export interface JournalMark {
  readonly key: string;
  readonly value: string;
  readonly pxLeft: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The value of a completion mark. */
export const DONE = 'done';

/** The journal of one store instance. */
export class RedisJournal {
  readonly #entries = new Map<string, Entry>();
  readonly #journalMs: number;
  readonly #max: number;

  constructor(journalMs: number, max: number) {
    this.#journalMs = journalMs;
    this.#max = max;
  }

  /** Keys remembered now (expired ones included until the next `marks`). */
  get size(): number {
    return this.#entries.size;
  }

  /** A claim this process took. */
  claimed(key: string, token: string, leaseMs: number, now: number): void {
    this.#put(key, { value: token, expiresAt: now + leaseMs, forgetAt: now + leaseMs });
  }

  /** A claim this process renewed. */
  renewed(key: string, token: string, leaseMs: number, now: number): void {
    const entry = this.#entries.get(key);
    if (entry?.value === token)
      this.#put(key, { value: token, expiresAt: now + leaseMs, forgetAt: now + leaseMs });
  }

  /** A claim this process released (or lost). */
  released(key: string, token: string): void {
    if (this.#entries.get(key)?.value === token) this.#entries.delete(key);
  }

  /** A completion this process recorded (kept `journalMs`, expiring in Redis after `windowMs`). */
  completed(key: string, windowMs: number, now: number): void {
    this.#put(key, { value: DONE, expiresAt: now + windowMs, forgetAt: now + this.#journalMs });
  }

  /** The marks to write back now, oldest first; forgets what expired. */
  marks(now: number): JournalMark[] {
    const out: JournalMark[] = [];
    for (const [key, entry] of this.#entries) {
      if (entry.forgetAt <= now || entry.expiresAt <= now) {
        this.#entries.delete(key);
        continue;
      }
      out.push({ key, value: entry.value, pxLeft: entry.expiresAt - now });
    }
    return out;
  }

  /** Forgets what expired; true when something is left to protect. */
  prune(now: number): boolean {
    for (const [key, entry] of this.#entries) {
      if (entry.forgetAt <= now || entry.expiresAt <= now) this.#entries.delete(key);
    }
    return this.#entries.size > 0;
  }

  #put(key: string, entry: Entry): void {
    // Re-inserted so that the map stays in order of last write (the oldest go first).
    if (this.#entries.delete(key)) {
      this.#entries.set(key, entry);
    } else {
      // A fresh flat copy: a key built by concatenation (or sliced from a frame) would keep its
      // pieces, or the whole frame, alive (about 900 bytes an entry instead of 210).
      this.#entries.set(decoder.decode(encoder.encode(key)), entry);
    }
    if (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
  }
}
