/**
 * Injectable time. Everything with a window (300 s skew, 24 h dedup, 7-day
 * grace, 15-minute lock, retry schedules) reads time and sets timers through
 * a {@link Clock}, so tests cross those windows in milliseconds.
 *
 * @module
 */

/** Handle of a timer set through a {@link Clock}. */
export interface TimerHandle {
  /** Unique per clock. */
  readonly id: number;
}

/** Options of {@link Clock.setTimeout}. */
export interface TimerOptions {
  /**
   * A background timer (a sweep, a cache expiry) does not keep the process
   * alive on its own. Waits someone is awaiting (a retry, a reconnect) must
   * not be background timers. @defaultValue false
   */
  readonly background?: boolean;
  /**
   * The timer waits for this clock's `now()` to pass a point (a rate
   * window, a service's `Retry-After`), not for an amount of real time. A
   * clock whose `now()` does not follow its timers (a test world's mixed
   * clock: virtual `now()`, real timers) may then move its time forward and
   * fire the timer at once, instead of firing on a `now()` that stood still.
   * @defaultValue false
   */
  readonly window?: boolean;
}

/** A source of time and timers. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Runs `fn` once after `ms` milliseconds of this clock's time. */
  setTimeout(fn: () => void, ms: number, options?: TimerOptions): TimerHandle;
  /** Cancels a timer; unknown or fired handles are ignored. */
  clearTimeout(handle: TimerHandle): void;
  /**
   * Optional. Told of each request the client sends to the service, with
   * the promise of its answer (it settles once the service answered, so
   * once it counted the request in its rate windows). A clock that moves its
   * `now()` forward for `window` timers (a test world's mixed clock) first
   * waits for the requests already sent to be answered, so none of them is
   * counted in the next window. Other clocks leave it out.
   */
  track?(answer: Promise<unknown>): void;
}

let nextSystemTimerId = 1;

/**
 * The real clock: `Date.now()` and the runtime's timers. Timers keep the
 * process alive like `setTimeout` does, unless set with `background: true`
 * (then unref'd where the runtime supports it).
 */
export const systemClock: Clock = (() => {
  const timers = new Map<number, ReturnType<typeof globalThis.setTimeout>>();
  return {
    now: () => Date.now(),
    setTimeout(fn, ms, options) {
      const id = nextSystemTimerId++;
      const t = globalThis.setTimeout(() => {
        timers.delete(id);
        fn();
      }, ms);
      if (options?.background === true) (t as { unref?: () => void }).unref?.();
      timers.set(id, t);
      return { id };
    },
    clearTimeout(handle) {
      const t = timers.get(handle.id);
      if (t !== undefined) {
        globalThis.clearTimeout(t);
        timers.delete(handle.id);
      }
    },
  };
})();

interface PendingTimer {
  id: number;
  at: number;
  seq: number;
  fn: () => void;
}

/**
 * A virtual clock that only moves when told to. Timers fire in time order
 * (ties in the order they were set) as {@link ManualClock.advance} passes them.
 *
 * @example
 * ```ts
 * const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
 * clock.advance(24 * 60 * 60 * 1000); // a day later, instantly
 * ```
 */
export class ManualClock implements Clock {
  #now: number;
  #seq = 0;
  #nextId = 1;
  #timers = new Map<number, PendingTimer>();

  /** @param startMs - initial time in ms since the epoch. @defaultValue `Date.now()` */
  constructor(startMs: number = Date.now()) {
    this.#now = startMs;
  }

  /** Current virtual time. */
  now(): number {
    return this.#now;
  }

  /** Sets a virtual timer. */
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.#nextId++;
    this.#timers.set(id, { id, at: this.#now + Math.max(0, ms), seq: this.#seq++, fn });
    return { id };
  }

  /** Cancels a virtual timer. */
  clearTimeout(handle: TimerHandle): void {
    this.#timers.delete(handle.id);
  }

  /** Number of timers not yet fired. */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  /**
   * Moves time forward by `ms`, firing every timer due on the way in order.
   * Timers set by a firing timer fire too if they fall inside the window.
   */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError('ManualClock.advance needs a non-negative number of ms');
    const target = this.#now + ms;
    for (;;) {
      let next: PendingTimer | undefined;
      for (const t of this.#timers.values()) {
        if (
          t.at <= target &&
          (next === undefined || t.at < next.at || (t.at === next.at && t.seq < next.seq))
        ) {
          next = t;
        }
      }
      if (next === undefined) break;
      this.#timers.delete(next.id);
      this.#now = Math.max(this.#now, next.at);
      next.fn();
    }
    this.#now = target;
  }

  /** Jumps to an absolute time (never backwards), firing due timers. */
  setTime(ms: number): void {
    this.advance(Math.max(0, ms - this.#now));
  }
}
