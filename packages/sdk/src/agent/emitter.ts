/**
 * A small typed emitter for the Agent: listeners may be async, and nothing a
 * listener does (throw or reject) escapes into the SDK.
 *
 * Two ways to emit:
 * - {@link TypedEmitter.emitSerial} awaits each listener in registration
 *   order and returns what they threw (event handlers: their errors go to the
 *   agent's one error channel with the event attached);
 * - {@link TypedEmitter.emit} calls listeners without waiting (notifications
 *   such as `fatal` or `decryptFailure`); a throw or rejection is passed to
 *   `onListenerError`.
 *
 * @module
 */

/** Event name → listener argument tuple. */
export type EventArgsMap<M> = { readonly [K in keyof M]: readonly unknown[] };

/** A listener of event `E` of map `M`. */
export type ListenerOf<M extends EventArgsMap<M>, E extends keyof M> = (...args: M[E]) => unknown;

type AnyListener = (...args: readonly unknown[]) => unknown;

interface Entry {
  readonly listener: AnyListener;
  readonly original: unknown;
  readonly once: boolean;
}

/** What an `emitSerial` listener threw. */
export interface ListenerFailure {
  readonly error: unknown;
}

/** The typed emitter. */
export class TypedEmitter<M extends EventArgsMap<M>> {
  readonly #entries = new Map<keyof M, Entry[]>();
  readonly #onListenerError: (error: unknown, event: keyof M) => void;

  /** @param onListenerError - receives what a listener of {@link TypedEmitter.emit} threw or rejected with. */
  constructor(onListenerError: (error: unknown, event: keyof M) => void) {
    this.#onListenerError = onListenerError;
  }

  /** Adds a listener. */
  on<E extends keyof M>(event: E, listener: ListenerOf<M, E>): void {
    this.#add(event, listener, false);
  }

  /** Adds a listener removed after its first call. */
  once<E extends keyof M>(event: E, listener: ListenerOf<M, E>): void {
    this.#add(event, listener, true);
  }

  /** Removes one registration of `listener` (the most recent). */
  off<E extends keyof M>(event: E, listener: ListenerOf<M, E>): void {
    const list = this.#entries.get(event);
    if (list === undefined) return;
    for (let i = list.length - 1; i >= 0; i--) {
      if (list[i]!.original === listener) {
        this.#entries.set(event, [...list.slice(0, i), ...list.slice(i + 1)]);
        return;
      }
    }
  }

  /** Listeners registered for `event`. */
  listenerCount(event: keyof M): number {
    return this.#entries.get(event)?.length ?? 0;
  }

  /** Calls every listener of `event` without waiting; failures go to `onListenerError`. */
  emit<E extends keyof M>(event: E, ...args: M[E]): void {
    for (const entry of this.#take(event)) {
      try {
        const result = entry.listener(...args);
        if (isPromiseLike(result)) result.then(undefined, (err: unknown) => this.#failed(err, event));
      } catch (err) {
        this.#failed(err, event);
      }
    }
  }

  /**
   * Calls every listener of `event` one after the other, awaiting each, and
   * returns what each failing listener threw (empty when all succeeded).
   */
  async emitSerial<E extends keyof M>(event: E, ...args: M[E]): Promise<ListenerFailure[]> {
    const failures: ListenerFailure[] = [];
    for (const entry of this.#take(event)) {
      try {
        await entry.listener(...args);
      } catch (error) {
        failures.push({ error });
      }
    }
    return failures;
  }

  #add(event: keyof M, listener: unknown, once: boolean): void {
    if (typeof listener !== 'function') throw new TypeError('A listener must be a function.');
    const list = this.#entries.get(event) ?? [];
    // Copy on write: a listener added while emitting does not see the current event.
    this.#entries.set(event, [...list, { listener: listener as AnyListener, original: listener, once }]);
  }

  #take(event: keyof M): readonly Entry[] {
    const list = this.#entries.get(event);
    if (list === undefined || list.length === 0) return [];
    if (list.some((e) => e.once)) {
      this.#entries.set(
        event,
        list.filter((e) => !e.once),
      );
    }
    return list;
  }

  #failed(error: unknown, event: keyof M): void {
    try {
      this.#onListenerError(error, event);
    } catch {
      // The error path itself must never throw into the SDK.
    }
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function'
  );
}
