/**
 * The data structure under the in-memory de-duplication store: a FIFO ring of
 * entries in claim order plus an open-addressing hash index over it.
 *
 * - Ring (struct of typed arrays, capacity a power of two): per entry the id
 *   as 4 × uint32 (16 bytes), an expiry time (float64) and a state byte.
 *   Entry `seq` lives in slot `seq & mask`; `head` is the oldest live seq.
 * - Index: linear probing over uint32 slots holding `ringSlot + 1` (0 = empty),
 *   at most half full; deletion by backward shift, so there are no tombstones.
 *
 * About 25 bytes of ring plus ≥ 8 bytes of index per id. Lookup, insert and
 * delete are O(1) on average. Expiry is swept from the head in small steps,
 * because ids are claimed in (roughly) the order they expire. Growth doubles
 * both arrays and rebuilds the index once (amortised O(1) per insert).
 *
 * @module
 */
import { hashWords } from './id-words.js';

/** State byte of a ring entry. */
export const EntryState = { Dead: 0, InFlight: 1, Completed: 2 } as const;
/** One of {@link EntryState}. */
export type EntryState = (typeof EntryState)[keyof typeof EntryState];

/** Ring + index of 128-bit ids. Not thread-safe; JavaScript needs no more. */
export class IdRing {
  #cap: number;
  #mask: number;
  #ids: Uint32Array;
  #expires: Float64Array;
  #state: Uint8Array;
  #index: Uint32Array;
  #imask: number;
  /** Oldest seq still in the ring. */
  head = 0;
  /** Next seq to be written. */
  tail = 0;

  constructor(capacity: number) {
    this.#cap = capacity;
    this.#mask = capacity - 1;
    this.#ids = new Uint32Array(capacity * 4);
    this.#expires = new Float64Array(capacity);
    this.#state = new Uint8Array(capacity);
    this.#index = new Uint32Array(capacity * 2);
    this.#imask = capacity * 2 - 1;
  }

  /** Ring capacity (entries). */
  get capacity(): number {
    return this.#cap;
  }

  /** Entries between head and tail, dead ones included. */
  get length(): number {
    return this.tail - this.head;
  }

  /** Bytes held by the typed arrays. */
  get byteLength(): number {
    return this.#ids.byteLength + this.#expires.byteLength + this.#state.byteLength + this.#index.byteLength;
  }

  slotOf(seq: number): number {
    return seq & this.#mask;
  }

  /** The seq of an occupied slot (unique within [head, tail)). */
  seqOf(slot: number): number {
    return this.head + ((slot - (this.head & this.#mask)) & this.#mask);
  }

  state(slot: number): EntryState {
    return this.#state[slot]! as EntryState;
  }

  expiresAt(slot: number): number {
    return this.#expires[slot]!;
  }

  set(slot: number, state: EntryState, expiresAt: number): void {
    this.#state[slot] = state;
    this.#expires[slot] = expiresAt;
  }

  #hashSlot(slot: number): number {
    const o = slot * 4;
    const ids = this.#ids;
    return hashWords(ids[o]!, ids[o + 1]!, ids[o + 2]!, ids[o + 3]!);
  }

  #matches(slot: number, w: Uint32Array): boolean {
    const o = slot * 4;
    const ids = this.#ids;
    return ids[o] === w[0] && ids[o + 1] === w[1] && ids[o + 2] === w[2] && ids[o + 3] === w[3];
  }

  /** The ring slot holding id `w`, or -1. */
  find(w: Uint32Array): number {
    const index = this.#index;
    let i = hashWords(w[0]!, w[1]!, w[2]!, w[3]!) & this.#imask;
    for (let v = index[i]!; v !== 0; v = index[i]!) {
      if (this.#matches(v - 1, w)) return v - 1;
      i = (i + 1) & this.#imask;
    }
    return -1;
  }

  /** Appends id `w` at the tail (the caller ensures room and absence); returns its slot. */
  push(w: Uint32Array, state: EntryState, expiresAt: number): number {
    const slot = this.tail & this.#mask;
    this.#ids.set(w, slot * 4);
    this.set(slot, state, expiresAt);
    this.tail++;
    this.#indexInsert(slot);
    return slot;
  }

  #indexInsert(slot: number): void {
    const index = this.#index;
    let i = this.#hashSlot(slot) & this.#imask;
    while (index[i] !== 0) i = (i + 1) & this.#imask;
    index[i] = slot + 1;
  }

  /** Removes a live slot from the index and marks it dead (it stays in the ring until the head passes). */
  remove(slot: number): void {
    this.#state[slot] = EntryState.Dead;
    const index = this.#index;
    const m = this.#imask;
    let i = this.#hashSlot(slot) & m;
    while (index[i] !== slot + 1) i = (i + 1) & m;
    // Backward-shift deletion: pull later members of the probe run into the hole.
    let j = i;
    for (;;) {
      j = (j + 1) & m;
      const v = index[j]!;
      if (v === 0) break;
      const home = this.#hashSlot(v - 1) & m;
      const between = i <= j ? home > i && home <= j : home > i || home <= j;
      if (!between) {
        index[i] = v;
        i = j;
      }
    }
    index[i] = 0;
  }

  /** Moves every entry into arrays of `capacity` (a larger power of two) and rebuilds the index. */
  grow(capacity: number): void {
    const old = { ids: this.#ids, expires: this.#expires, state: this.#state, mask: this.#mask };
    this.#cap = capacity;
    this.#mask = capacity - 1;
    this.#ids = new Uint32Array(capacity * 4);
    this.#expires = new Float64Array(capacity);
    this.#state = new Uint8Array(capacity);
    this.#index = new Uint32Array(capacity * 2);
    this.#imask = capacity * 2 - 1;
    for (let seq = this.head; seq < this.tail; seq++) {
      const from = seq & old.mask;
      const to = seq & this.#mask;
      this.#ids.set(old.ids.subarray(from * 4, from * 4 + 4), to * 4);
      this.#expires[to] = old.expires[from]!;
      this.#state[to] = old.state[from]!;
      if (old.state[from] !== EntryState.Dead) this.#indexInsert(to);
    }
  }
}
