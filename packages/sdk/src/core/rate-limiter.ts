/**
 * A client-side request limiter: at most `limit` starts in any `intervalMs`
 * window (a sliding log of the last `limit` start times). Callers over the
 * limit wait in FIFO order instead of failing; a waiter whose AbortSignal
 * fires leaves the queue without taking a slot. Time comes from a {@link Clock}.
 *
 * @module
 */
import { systemClock, type Clock, type TimerHandle } from './clock.js';
import { ConfigurationError } from './errors/configuration-error.js';
import * as LIMITS from './limits/objects.js';

/** Options of {@link createRateLimiter}. */
export interface RateLimiterOptions {
  /** Starts allowed per window. @defaultValue `5` (the service's object-fetch limit per agent) */
  limit?: number;
  /** Window length. @defaultValue `1000` */
  intervalMs?: number;
  /** Source of time and timers. @defaultValue `systemClock` */
  clock?: Clock;
}

/** Admits calls at a bounded rate. */
export interface RateLimiter {
  /**
   * Resolves when the caller may start. Rejects only when `signal` aborts
   * first (with the signal's reason); the caller then leaves the queue and
   * takes no slot.
   */
  acquire(signal?: AbortSignal): Promise<void>;
  /** Callers waiting now. */
  readonly pending: number;
}

/**
 * Creates a sliding-window limiter. Share one per agent across every fetcher
 * of that agent: the service's limit is per agent, not per fetcher.
 *
 * @throws {@link ConfigurationError} for a non-positive `limit` or `intervalMs`.
 * @example
 * ```ts
 * const limiter = createRateLimiter({ limit: 5, intervalMs: 1000 });
 * await limiter.acquire(); // the 6th call within a second waits
 * ```
 */
export function createRateLimiter(options: RateLimiterOptions = {}): RateLimiter {
  const limit = options.limit ?? LIMITS.OBJECT_FETCHES_PER_SECOND;
  const intervalMs = options.intervalMs ?? 1000;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new ConfigurationError({ option: 'limit', message: 'Option "limit" must be a positive integer.' });
  }
  if (!(intervalMs > 0)) {
    throw new ConfigurationError({ option: 'intervalMs', message: 'Option "intervalMs" must be positive.' });
  }
  const clock = options.clock ?? systemClock;
  const starts = new Array<number>(limit).fill(Number.NEGATIVE_INFINITY);
  let oldest = 0;
  // Waiters in FIFO order; an aborted waiter is set to `undefined` and skipped.
  const queue: ((() => void) | undefined)[] = [];
  let queueHead = 0;
  let waiting = 0;
  let timer: TimerHandle | undefined;

  const tryTake = (): boolean => {
    const now = clock.now();
    if (now - starts[oldest]! < intervalMs) return false;
    starts[oldest] = now;
    oldest = (oldest + 1) % limit;
    return true;
  };
  const drain = (): void => {
    timer = undefined;
    while (queueHead < queue.length) {
      const next = queue[queueHead];
      if (next === undefined) {
        queueHead += 1;
        continue;
      }
      if (!tryTake()) break;
      queueHead += 1;
      waiting -= 1;
      next();
    }
    if (queueHead === queue.length) {
      queue.length = 0;
      queueHead = 0;
    } else {
      schedule();
    }
  };
  const schedule = (): void => {
    if (timer !== undefined) return;
    // A window timer: it waits for `clock.now()` to leave the window, so a clock
    // whose now() does not follow real time can satisfy it (see TimerOptions.window).
    timer = clock.setTimeout(drain, Math.max(0, starts[oldest]! + intervalMs - clock.now()), {
      window: true,
    });
  };

  return {
    acquire(signal) {
      if (signal?.aborted === true) return Promise.reject(signal.reason as unknown);
      if (waiting === 0 && tryTake()) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const index = queue.length;
        const onAbort = (): void => {
          if (queue[index] === undefined) return;
          queue[index] = undefined;
          waiting -= 1;
          reject(signal?.reason as unknown);
        };
        queue.push(() => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        });
        waiting += 1;
        signal?.addEventListener('abort', onAbort, { once: true });
        schedule();
      });
    },
    get pending() {
      return waiting;
    },
  };
}
