/**
 * The running turns of an agent, by conversation (issue #26).
 *
 * A turn is one run of the `message.new` handlers (and middleware) for one
 * message, or for several under the `debounce` and `latest` strategies
 * (`ctx.messages`). Each turn owns an `AbortController`: its signal is
 * `ctx.signal`, and it aborts when the human stops the turn (`stopped`),
 * when a newer message supersedes it under `latest` (`superseded`), or when
 * `close()` passes its deadline (`shutdown`). Reply streams the agent opened
 * in the conversation while the turn ran are then aborted with that reason
 * (the human sees `streamError` reason `aborted`, detail `stopped` …).
 *
 * The registry is in-process: with several copies of an agent, conversation
 * affinity sends a conversation's deliveries (its stop included) to the one
 * process that runs its turns. {@link TurnRegistry} is the small interface a
 * shared registry would implement.
 *
 * Other parts hook the lifecycle through {@link TurnRegistry.hook}
 * (`onStart` / `onEnd`, with the conversation id and the signal), e.g. a
 * "working" indicator.
 *
 * @module
 */
import type { IncomingMessage } from '../events.js';

/** Why a turn's signal aborted. */
export type TurnAbortReason = 'stopped' | 'superseded' | 'shutdown';

/** A turn as hooks and the context see it. */
export interface TurnInfo {
  /** Unique within the process. */
  readonly id: number;
  readonly conversationId: string;
  /** Aborts when the turn is stopped, superseded or shut down. */
  readonly signal: AbortSignal;
  /** The messages of the turn, oldest first (one, except under `debounce` and `latest`). */
  readonly messages: readonly IncomingMessage[];
  /** Why the signal aborted; undefined while it has not. */
  readonly abortReason: TurnAbortReason | undefined;
}

/** Hooks on the turn lifecycle (internal: presence, metrics). */
export interface TurnHooks {
  /** A turn starts, before its handlers run. */
  onStart?(turn: TurnInfo): void;
  /** A turn ended (its handlers returned or threw), aborted or not. */
  onEnd?(turn: TurnInfo): void;
}

/** Something a turn aborts with it (a reply stream). */
export interface Abortable {
  abort(reason?: string): Promise<void>;
}

/** A running turn, as its runner holds it. */
export interface ActiveTurn extends TurnInfo {
  /** Ends the turn: unregisters it and runs the `onEnd` hooks. Idempotent. */
  end(): void;
}

/** The running turns of a process, by conversation. */
export interface TurnRegistry {
  /** Registers a new turn and runs the `onStart` hooks. */
  begin(conversationId: string, messages: readonly IncomingMessage[]): ActiveTurn;
  /** The turns running in a conversation. */
  running(conversationId: string): readonly TurnInfo[];
  /** Aborts the turns running in a conversation (those `which` accepts, else all); returns how many. */
  abort(conversationId: string, reason: TurnAbortReason, which?: (turn: TurnInfo) => boolean): number;
  /** Aborts every running turn (shutdown); returns how many. */
  abortAll(reason: TurnAbortReason): number;
  /** Ties `target` to the turns running in `conversationId` (aborted with them); false when none runs. */
  track(conversationId: string, target: Abortable): boolean;
  /** The turn whose messages include `event`, while it runs. */
  turnOf(event: object): TurnInfo | undefined;
  /** Adds lifecycle hooks; returns their removal. */
  hook(hooks: TurnHooks): () => void;
  /** Turns running now. */
  readonly size: number;
  /** Aborts when {@link TurnRegistry.abortAll} runs with `shutdown` (the signal of events outside a turn). */
  readonly shutdown: AbortSignal;
}

/** What the signal's `reason` says, per abort reason. */
const ABORT_MESSAGES: Readonly<Record<TurnAbortReason, string>> = {
  stopped: 'The turn was stopped by a human.',
  superseded: 'The turn was superseded by a newer message.',
  shutdown: 'The agent shut down before the turn finished.',
};

/** The `reason` of an aborted turn's signal: a `DOMException` named `AbortError`. */
export function turnAbortError(reason: TurnAbortReason): DOMException {
  return new DOMException(ABORT_MESSAGES[reason], 'AbortError');
}

interface Entry extends ActiveTurn {
  readonly controller: AbortController;
  readonly tracked: Set<Abortable>;
  reason: TurnAbortReason | undefined;
}

/** Creates the in-process registry. */
export function createTurnRegistry(onHookError: (error: unknown) => void = () => undefined): TurnRegistry {
  const byConversation = new Map<string, Set<Entry>>();
  const byEvent = new WeakMap<object, Entry>();
  const hooks = new Set<TurnHooks>();
  const shutdown = new AbortController();
  let nextId = 1;
  let size = 0;

  const callHooks = (name: keyof TurnHooks, turn: TurnInfo): void => {
    for (const h of hooks) {
      try {
        h[name]?.(turn);
      } catch (error) {
        onHookError(error);
      }
    }
  };

  const abortEntry = (e: Entry, reason: TurnAbortReason): void => {
    if (e.controller.signal.aborted) return;
    e.reason = reason;
    e.controller.abort(turnAbortError(reason));
    for (const t of e.tracked) void t.abort(reason).catch(() => undefined);
    e.tracked.clear();
  };

  return {
    begin(conversationId, messages) {
      const controller = new AbortController();
      let ended = false;
      const entry: Entry = {
        id: nextId++,
        conversationId,
        signal: controller.signal,
        messages,
        controller,
        tracked: new Set(),
        reason: undefined,
        get abortReason() {
          return entry.reason;
        },
        end() {
          if (ended) return;
          ended = true;
          const set = byConversation.get(conversationId);
          set?.delete(entry);
          if (set?.size === 0) byConversation.delete(conversationId);
          size -= 1;
          entry.tracked.clear();
          callHooks('onEnd', entry);
        },
      };
      let set = byConversation.get(conversationId);
      if (set === undefined) byConversation.set(conversationId, (set = new Set()));
      set.add(entry);
      size += 1;
      for (const m of messages) byEvent.set(m, entry);
      callHooks('onStart', entry);
      return entry;
    },
    running(conversationId) {
      return [...(byConversation.get(conversationId) ?? [])];
    },
    abort(conversationId, reason, which) {
      const set = byConversation.get(conversationId);
      if (set === undefined) return 0;
      let n = 0;
      for (const e of set) {
        if (which !== undefined && !which(e)) continue;
        if (!e.controller.signal.aborted) n += 1;
        abortEntry(e, reason);
      }
      return n;
    },
    abortAll(reason) {
      if (reason === 'shutdown') shutdown.abort(turnAbortError(reason));
      let n = 0;
      for (const conversationId of [...byConversation.keys()]) n += this.abort(conversationId, reason);
      return n;
    },
    track(conversationId, target) {
      const set = byConversation.get(conversationId);
      if (set === undefined || set.size === 0) return false;
      for (const e of set) {
        if (e.controller.signal.aborted) void target.abort(e.reason).catch(() => undefined);
        else e.tracked.add(target);
      }
      return true;
    },
    turnOf(event) {
      return byEvent.get(event);
    },
    hook(h) {
      hooks.add(h);
      return () => hooks.delete(h);
    },
    get size() {
      return size;
    },
    shutdown: shutdown.signal,
  };
}
