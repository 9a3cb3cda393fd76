/**
 * The per-agent pending queue: a FIFO of deliveries (the head is the one in
 * flight or waiting for its retry) and the agent's delivery state.
 *
 * @module
 */
import type { TimerHandle } from 'agent-messaging-sdk/protocol';
import type { WireRef } from './body.js';
import type { OutboundEvent } from './types.js';

/** One delivery waiting in, or at the head of, an agent's queue. */
export interface PendingDelivery {
  /** UUID v7; the same on every attempt, including after a recovery. */
  readonly deliveryId: string;
  readonly event: OutboundEvent;
  /** The `ref` when the ciphertext was stored as an object (oversize). */
  readonly ref: WireRef | undefined;
  /** The serialised body, built when the delivery first reaches the head (kept for its retries). */
  bytes: Uint8Array | undefined;
  /** When the event was queued (the log's `created_at`), engine clock ms. */
  readonly createdAtMs: number;
  /** When the event is dropped if still undelivered (created + 24 h). */
  readonly expiresAtMs: number;
  /** Attempts made so far (all of them, 429 answers included). */
  attempts: number;
  /** Temporary failures in the current run of the schedule (reset by a recovery). */
  failures: number;
  /** True once an `unreachable` log entry was written for it. */
  loggedUnreachable: boolean;
  /** The WebSocket session it was last sent on while it waits for its ack (ack mode only). */
  sentOn: number | undefined;
  /** When it was last sent on that session, engine clock ms. */
  sentAtMs: number;
}

/** A first-in, first-out queue with O(1) push and shift. */
export class Fifo<T> {
  #items: (T | undefined)[] = [];
  #head = 0;

  /** Number of items. */
  get size(): number {
    return this.#items.length - this.#head;
  }

  /** Appends an item. */
  push(item: T): void {
    this.#items.push(item);
  }

  /** The first item, if any. */
  peek(): T | undefined {
    return this.#items[this.#head];
  }

  /** Removes and returns the first item. */
  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head++] = undefined;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** Puts `items` back in front of the queue, in their order (redeliveries go first). */
  unshiftAll(items: readonly T[]): void {
    if (items.length === 0) return;
    this.#items = [...items, ...this.#items.slice(this.#head)];
    this.#head = 0;
  }

  /** The items in order, without removing them. */
  items(): T[] {
    return this.#items.slice(this.#head) as T[];
  }

  /** Removes every item and returns them in order. */
  drain(): T[] {
    const out = this.#items.slice(this.#head) as T[];
    this.#items = [];
    this.#head = 0;
    return out;
  }
}

/** Everything the engine tracks for one agent. */
export interface AgentState {
  readonly agentId: string;
  readonly queue: Fifo<PendingDelivery>;
  status: 'ready' | 'unreachable';
  /** The head is being attempted right now. */
  inFlight: boolean;
  /** The head waits for its next attempt. */
  retryTimer: TimerHandle | undefined;
  /** Fires when the head's 24 h are up. */
  expiryTimer: { readonly handle: TimerHandle; readonly atMs: number } | undefined;
  /** Aborted when the agent is forgotten or the engine closes. */
  readonly cancel: AbortController;
  /**
   * WebSocket deliveries sent and not yet acknowledged (ack mode), in the
   * order they were sent; they count as pending and go back to the front of
   * the queue when their session ends.
   */
  readonly unacked: Map<string, PendingDelivery>;
  /** Fires when the oldest unacknowledged delivery's ack is overdue. */
  ackTimer: TimerHandle | undefined;
  /**
   * Conversation affinity (WebSocket sessions shared by several copies):
   * the session each conversation's events go to, kept while that session
   * lives (docs/production.md).
   */
  readonly owners: Map<string, number>;
}

/** A fresh state: `ready`, nothing queued. */
export function newAgentState(agentId: string): AgentState {
  return {
    agentId,
    queue: new Fifo(),
    status: 'ready',
    inFlight: false,
    retryTimer: undefined,
    expiryTimer: undefined,
    cancel: new AbortController(),
    unacked: new Map(),
    ackTimer: undefined,
    owners: new Map(),
  };
}
