/**
 * Turn strategies (issue #26): how the `message.new` events of one
 * conversation become turns. Chosen per agent (option `turns`) and
 * overridable per conversation (`agent.setTurnStrategy`). docs/agent.md,
 * "Turns", states the ordering and exactly-once guarantees of each.
 *
 * - `serial` (default): one turn per message, one at a time, in order.
 * - `debounce`: messages arriving within `windowMs` of each other (at most
 *   `maxMessages`) become one turn; `ctx.messages` holds them all.
 * - `latest`: a new message aborts the running turn (`ctx.signal`, reason
 *   `superseded`); messages that arrived while it ran join the next turn.
 * - `concurrent`: one turn per message, without waiting for earlier ones.
 *
 * The {@link TurnGate} applies them inside the pipeline: `laneKey` when an
 * event is taken, `arrived` when it is opened (outside the conversation's
 * queue), `run` when its place in the queue comes.
 *
 * @module
 */
import type { Clock, TimerHandle } from '../../core/clock.js';
import { ConfigurationError } from '../../core/errors/configuration-error.js';
import type { AnyAgentEvent } from '../events.js';
import type { TurnRegistry } from './registry.js';

/** How the messages of a conversation become turns. */
export type TurnStrategy = 'serial' | 'debounce' | 'latest' | 'concurrent';

/** The `turns` option of the Agent. */
export interface TurnOptions {
  /** The strategy of every conversation without its own. @defaultValue `'serial'` */
  strategy?: TurnStrategy;
  /** `debounce`: a turn starts once no message came for this long, ms (1 to 60 000). @defaultValue `1500` */
  windowMs?: number;
  /** `debounce`: a turn starts at once when it holds this many messages (1 to 1000). @defaultValue `20` */
  maxMessages?: number;
}

/** Every default of the `turns` option. */
export const DEFAULT_TURNS = { strategy: 'serial', windowMs: 1500, maxMessages: 20 } as const;

/** The `turns` option with its defaults applied. */
export interface ResolvedTurnOptions {
  readonly strategy: TurnStrategy;
  readonly windowMs: number;
  readonly maxMessages: number;
}

const STRATEGIES: ReadonlySet<string> = new Set(['serial', 'debounce', 'latest', 'concurrent']);

/** Checks a strategy name. @throws {@link ConfigurationError} for another value. */
export function checkStrategy(strategy: unknown, option = 'turns.strategy'): TurnStrategy {
  if (typeof strategy !== 'string' || !STRATEGIES.has(strategy)) {
    throw new ConfigurationError({
      option,
      message: `Option "${option}" must be "serial", "debounce", "latest" or "concurrent".`,
    });
  }
  return strategy as TurnStrategy;
}

function bounded(value: unknown, fallback: number, min: number, max: number, option: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigurationError({
      option,
      message: `Option "${option}" must be an integer from ${min} to ${max}.`,
    });
  }
  return value;
}

/** Applies the defaults. @throws {@link ConfigurationError} naming the bad field. */
export function resolveTurnOptions(o: TurnOptions | undefined): ResolvedTurnOptions {
  return {
    strategy: checkStrategy(o?.strategy ?? DEFAULT_TURNS.strategy),
    windowMs: bounded(o?.windowMs, DEFAULT_TURNS.windowMs, 1, 60_000, 'turns.windowMs'),
    maxMessages: bounded(o?.maxMessages, DEFAULT_TURNS.maxMessages, 1, 1000, 'turns.maxMessages'),
  };
}

/** What the gate handles: an opened event (the pipeline's item carries its claims too). */
export interface GateItem {
  readonly event: AnyAgentEvent;
}

interface Batch<T> {
  readonly items: T[];
  readonly closed: Promise<void>;
  close(): void;
  timer: TimerHandle | undefined;
  started: boolean;
  readonly done: Promise<void>;
  finish(): void;
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Applies the strategies to the `message.new` events of the pipeline. */
export class TurnGate<T extends GateItem> {
  readonly registry: TurnRegistry;
  readonly #clock: Clock;
  readonly #o: ResolvedTurnOptions;
  readonly #overrides = new Map<string, TurnStrategy>();
  readonly #mode = new WeakMap<T, TurnStrategy>();
  readonly #batches = new Map<string, Batch<T>>();
  readonly #batchOf = new WeakMap<T, Batch<T>>();
  readonly #pending = new Map<string, T[]>();
  /** Items already handled inside another item's turn (`latest`). */
  readonly #taken = new WeakSet<T>();
  #unique = 0;

  constructor(registry: TurnRegistry, clock: Clock, options: ResolvedTurnOptions) {
    this.registry = registry;
    this.#clock = clock;
    this.#o = options;
  }

  /** The strategy of a conversation. */
  strategyOf(conversationId: string): TurnStrategy {
    return this.#overrides.get(conversationId) ?? this.#o.strategy;
  }

  /** Sets (or with undefined, removes) a conversation's own strategy. */
  setStrategy(conversationId: string, strategy: TurnStrategy | undefined): void {
    if (strategy === undefined) this.#overrides.delete(conversationId);
    else this.#overrides.set(conversationId, checkStrategy(strategy, 'strategy'));
  }

  /** The scheduler key of an event taken now: a key of its own for a message under `concurrent`. */
  laneKey(conversationId: string, eventType: string): string {
    if (eventType !== 'message.new' || this.strategyOf(conversationId) !== 'concurrent')
      return conversationId;
    this.#unique += 1;
    return `${conversationId}\u0000${this.#unique}`;
  }

  /** An opened `message.new` arrived (outside the queue): collects it, or supersedes the running turn. */
  arrived(item: T): void {
    const conversationId = item.event.conversationId;
    const mode = this.strategyOf(conversationId);
    this.#mode.set(item, mode);
    if (mode === 'latest') {
      let list = this.#pending.get(conversationId);
      if (list === undefined) this.#pending.set(conversationId, (list = []));
      list.push(item);
      this.registry.abort(conversationId, 'superseded');
    } else if (mode === 'debounce') {
      const batch = this.#openBatch(conversationId);
      batch.items.push(item);
      this.#batchOf.set(item, batch);
      if (batch.timer !== undefined) this.#clock.clearTimeout(batch.timer);
      batch.timer = undefined;
      if (batch.items.length >= this.#o.maxMessages) batch.close();
      else batch.timer = this.#clock.setTimeout(() => batch.close(), this.#o.windowMs);
    }
  }

  /**
   * Runs `item` when its place in the queue comes: `turn(items)` runs the
   * handlers for the items of one turn. An item folded into another turn
   * returns without running one (that turn settles it).
   */
  async run(item: T, turn: (items: readonly T[]) => Promise<void>): Promise<void> {
    const mode = this.#mode.get(item);
    const conversationId = item.event.conversationId;
    if (mode === 'latest') {
      const list = this.#pending.get(conversationId) ?? [];
      if (this.#taken.has(item)) return; // it ran in an earlier turn
      const at = list.indexOf(item);
      if (at === -1) return turn([item]);
      if (at !== list.length - 1) return; // a newer message takes this one into its turn
      this.#pending.delete(conversationId);
      for (const i of list) this.#taken.add(i);
      return turn(list);
    }
    const batch = mode === 'debounce' ? this.#batchOf.get(item) : undefined;
    if (batch === undefined) return turn([item]);
    await batch.closed;
    if (batch.started) return batch.done;
    batch.started = true;
    try {
      await turn(batch.items);
    } finally {
      batch.finish();
    }
  }

  /** Closes every collecting batch now (`close()`: nothing waits for a window). */
  flush(): void {
    for (const b of [...this.#batches.values()]) b.close();
  }

  #openBatch(conversationId: string): Batch<T> {
    const open = this.#batches.get(conversationId);
    if (open !== undefined) return open;
    const closed = deferred();
    const done = deferred();
    const batch: Batch<T> = {
      items: [],
      closed: closed.promise,
      timer: undefined,
      started: false,
      done: done.promise,
      finish: done.resolve,
      close: () => {
        if (batch.timer !== undefined) this.#clock.clearTimeout(batch.timer);
        batch.timer = undefined;
        if (this.#batches.get(conversationId) === batch) this.#batches.delete(conversationId);
        closed.resolve();
      },
    };
    this.#batches.set(conversationId, batch);
    return batch;
  }
}
