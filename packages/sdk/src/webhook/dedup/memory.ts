/**
 * The default de-duplication store: bounded, in one process's memory.
 *
 * Ids are kept as 16 bytes (UUIDs exactly, other strings as a 128-bit hash)
 * in a FIFO ring with a hash index ({@link IdRing}); about 35 bytes per id
 * when full. Every operation first sweeps up to a few expired entries from
 * the head of the ring, so expiry keeps pace with arrivals and never stalls.
 *
 * At the bound (`maxEntries`), the oldest entry is forgotten to make room
 * (FIFO eviction, counted in `evictions`): a very late redelivery of that id
 * would run the handler again. If the oldest entry is a claim still in
 * flight, the new claim is refused with `busy` instead, and the receiver
 * answers 503 so the service retries.
 *
 * @module
 */
import { systemClock, type Clock } from '../../core/clock.js';
import { ConfigurationError } from '../../core/errors/configuration-error.js';
import { WEBHOOK_DEDUP_WINDOW_MS } from '../../core/limits/webhook.js';
import { EntryState, IdRing } from './id-ring.js';
import { idToWords } from './id-words.js';
import type { DedupClaimResult, DedupStore } from './types.js';

/** Options of {@link createMemoryDedupStore}. */
export interface MemoryDedupStoreOptions {
  /**
   * Most ids held at once. Size it at least at peak deliveries per second × 86 400.
   * About 35 bytes per id are used when full.
   * @defaultValue `1_000_000`
   */
  maxEntries?: number;
  /** How long a completed id is remembered. @defaultValue `86_400_000` (24 h) */
  windowMs?: number;
  /**
   * Ids allocated up front (rounded up to a power of two). Growth doubles the
   * arrays and rebuilds the index in one step (~tens of ms at 10^6 ids); set
   * this to the expected size to avoid that pause.
   * @defaultValue `1024`
   */
  initialCapacity?: number;
  /** Source of time. @defaultValue `systemClock` */
  clock?: Clock;
}

/** The in-memory store, with its counters. */
export interface MemoryDedupStore extends DedupStore {
  claim(deliveryId: string, leaseMs: number): DedupClaimResult;
  complete(deliveryId: string, token: string): void;
  release(deliveryId: string, token: string): void;
  renew(deliveryId: string, token: string, leaseMs: number): boolean;
  /** Ids currently claimed or completed. */
  readonly size: number;
  /** Ids forgotten early because the store was full. */
  readonly evictions: number;
  /** Bytes held by the store's arrays. */
  readonly byteLength: number;
  /** Removes up to `limit` expired entries from the head now; returns how many went. */
  sweep(limit?: number): number;
}

/** Expired entries swept by each operation: enough to outpace one insert per operation. */
const SWEEP_STEP = 8;
const COMPLETED: DedupClaimResult = Object.freeze({ status: 'completed' });
const IN_FLIGHT: DedupClaimResult = Object.freeze({ status: 'in_flight' });
const BUSY: DedupClaimResult = Object.freeze({ status: 'busy' });

function positiveInt(value: number | undefined, fallback: number, option: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ConfigurationError({ option, message: `Option "${option}" must be a positive integer.` });
  }
  return value;
}

function powerOfTwoAtLeast(n: number): number {
  let p = 16;
  while (p < n) p *= 2;
  return p;
}

class MemoryStore implements MemoryDedupStore {
  readonly #clock: Clock;
  readonly #windowMs: number;
  readonly #max: number;
  readonly #ring: IdRing;
  readonly #words = new Uint32Array(4);
  #live = 0;
  #evictions = 0;

  constructor(options: MemoryDedupStoreOptions) {
    this.#clock = options.clock ?? systemClock;
    this.#max = positiveInt(options.maxEntries, 1_000_000, 'maxEntries');
    this.#windowMs = positiveInt(options.windowMs, WEBHOOK_DEDUP_WINDOW_MS, 'windowMs');
    const initial = positiveInt(options.initialCapacity, 1024, 'initialCapacity');
    this.#ring = new IdRing(powerOfTwoAtLeast(Math.min(initial, this.#max)));
  }

  get size(): number {
    return this.#live;
  }

  get evictions(): number {
    return this.#evictions;
  }

  get byteLength(): number {
    return this.#ring.byteLength;
  }

  claim(deliveryId: string, leaseMs: number): DedupClaimResult {
    const now = this.#clock.now();
    this.#sweep(now, SWEEP_STEP);
    const ring = this.#ring;
    idToWords(deliveryId, this.#words);
    const slot = ring.find(this.#words);
    if (slot >= 0) {
      if (ring.expiresAt(slot) > now)
        return ring.state(slot) === EntryState.Completed ? COMPLETED : IN_FLIGHT;
      this.#drop(slot);
    }
    if (!this.#makeRoom(now)) return BUSY;
    const added = ring.push(this.#words, EntryState.InFlight, now + leaseMs);
    this.#live++;
    return { status: 'claimed', token: String(ring.seqOf(added)) };
  }

  complete(deliveryId: string, _token: string): void {
    const now = this.#clock.now();
    const ring = this.#ring;
    idToWords(deliveryId, this.#words);
    const slot = ring.find(this.#words);
    // The work is done whoever holds the claim now, so completion ignores the token.
    if (slot >= 0) {
      ring.set(slot, EntryState.Completed, now + this.#windowMs);
    } else if (this.#makeRoom(now)) {
      ring.push(this.#words, EntryState.Completed, now + this.#windowMs);
      this.#live++;
    }
  }

  release(deliveryId: string, token: string): void {
    const ring = this.#ring;
    idToWords(deliveryId, this.#words);
    const slot = ring.find(this.#words);
    if (slot < 0 || ring.state(slot) !== EntryState.InFlight) return;
    if (String(ring.seqOf(slot)) !== token) return;
    this.#drop(slot);
  }

  renew(deliveryId: string, token: string, leaseMs: number): boolean {
    const now = this.#clock.now();
    const ring = this.#ring;
    idToWords(deliveryId, this.#words);
    const slot = ring.find(this.#words);
    if (slot < 0 || ring.state(slot) !== EntryState.InFlight || ring.expiresAt(slot) <= now) return false;
    if (String(ring.seqOf(slot)) !== token) return false;
    ring.set(slot, EntryState.InFlight, now + leaseMs);
    return true;
  }

  sweep(limit = Number.POSITIVE_INFINITY): number {
    return this.#sweep(this.#clock.now(), limit);
  }

  #drop(slot: number): void {
    this.#ring.remove(slot);
    this.#live--;
  }

  #sweep(now: number, limit: number): number {
    const ring = this.#ring;
    let swept = 0;
    while (swept < limit && ring.head < ring.tail) {
      const slot = ring.slotOf(ring.head);
      if (ring.state(slot) !== EntryState.Dead) {
        if (ring.expiresAt(slot) > now) break;
        this.#drop(slot);
      }
      ring.head++;
      swept++;
    }
    return swept;
  }

  /** Ensures the ring can take one more entry; false when the bound is held by live claims. */
  #makeRoom(now: number): boolean {
    const ring = this.#ring;
    if (ring.length >= this.#max) this.#sweep(now, SWEEP_STEP * 8);
    while (ring.length >= this.#max) {
      const slot = ring.slotOf(ring.head);
      const state = ring.state(slot);
      if (state === EntryState.InFlight && ring.expiresAt(slot) > now) return false;
      if (state !== EntryState.Dead) {
        this.#drop(slot);
        this.#evictions++;
      }
      ring.head++;
    }
    if (ring.length === ring.capacity) ring.grow(ring.capacity * 2);
    return true;
  }
}

/**
 * Creates the bounded in-memory de-duplication store (the receiver's default).
 * Right for one receiver process; use {@link webhook/redis!createRedisDedupStore | createRedisDedupStore} when
 * several replicas share the deliveries.
 *
 * @throws {@link index!ConfigurationError | ConfigurationError} for a non-positive `maxEntries`, `windowMs` or `initialCapacity`.
 * @example
 * ```ts
 * const dedup = createMemoryDedupStore({ maxEntries: 200_000 });
 * const receiver = createWebhookReceiver({ secret, handler, dedup });
 * ```
 */
export function createMemoryDedupStore(options: MemoryDedupStoreOptions = {}): MemoryDedupStore {
  return new MemoryStore(options);
}
