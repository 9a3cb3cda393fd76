/**
 * The mixed clock of a test world: `now()` from a virtual clock (the
 * service's), timers on real time, and waits on a time window (a rate
 * limit, a `Retry-After`) satisfied at once by moving the virtual time
 * forward, so that no wait on `now()` stalls while the clock stands still.
 *
 * @module
 */
import { systemClock, type Clock, type TimerOptions } from 'agent-messaging-sdk/protocol';
import type { ReferenceServer } from '../server/index.js';

/**
 * Real time a window wait gives requests already admitted to reach the
 * service before the virtual time moves (they would otherwise be counted
 * in the next window as well). A pause, not a guarantee: see docs/testing.md.
 */
export const WINDOW_SETTLE_MS = 20;

/** A virtual time that the mixed clock reads and, for window waits, moves forward. */
export interface VirtualTime {
  /** The virtual time, ms since the epoch. */
  now(): number;
  /** Moves the virtual time forward by `ms` (firing whatever falls due on the way). */
  advance(ms: number): void;
}

/**
 * Creates a mixed clock over `virtual`:
 *
 * - `now()` is `virtual.now()`, so timestamps, skew checks, replay and
 *   de-duplication windows agree with the virtual service;
 * - timers run on `timers` (real time by default), so reconnects, retries
 *   and time limits still fire while the virtual time stands still;
 * - a timer set with `{ window: true }` (a client-side rate limiter, the wait
 *   after a 429) waits for `now()` to pass a point: it fires after a short
 *   real pause (`settleMs`, {@link WINDOW_SETTLE_MS}), moving the virtual time
 *   forward to that point if it is not there yet. A test that sends 100 messages in a row on a frozen
 *   clock completes; the virtual time moves by the windows it waited for.
 *
 * @example
 * ```ts
 * import { createMixedClock, ManualClock } from '@agent-messaging/dev/testing';
 *
 * const virtual = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
 * const clock = createMixedClock(virtual);
 * clock.setTimeout(() => console.log(clock.now() - Date.parse('2026-01-01T00:00:00Z')), 1_000, { window: true });
 * // prints 1000 after 20 ms: the window wait moved the virtual time forward
 * ```
 */
export function createMixedClock(
  virtual: VirtualTime,
  timers: Clock = systemClock,
  settleMs: number = WINDOW_SETTLE_MS,
): Clock {
  return {
    now: () => virtual.now(),
    setTimeout(fn, ms, options?: TimerOptions) {
      if (options?.window !== true) return timers.setTimeout(fn, ms, options);
      const due = virtual.now() + Math.max(0, ms);
      return timers.setTimeout(
        () => {
          const behind = due - virtual.now();
          if (behind > 0) virtual.advance(behind);
          fn();
        },
        Math.min(Math.max(0, ms), settleMs),
      );
    },
    clearTimeout: (handle) => timers.clearTimeout(handle),
  };
}

/**
 * The mixed clock of a reference server: {@link createMixedClock} over the
 * server's virtual time (`server.clock`, moved by `server.advanceTime`), or
 * `systemClock` when the server runs on real time. Build extra clients of a
 * world on it (`world.clock` is this clock), or their envelopes are refused
 * as stale once the virtual time is moved past the replay window.
 *
 * @example
 * ```ts
 * const server = await startReferenceServer({ virtualTime: true });
 * const user = new UserClient({ baseUrl: server.url, clock: serverClock(server) });
 * ```
 */
export function serverClock(server: ReferenceServer): Clock {
  if (server.virtualClock === undefined) return systemClock;
  return createMixedClock({ now: () => server.clock.now(), advance: (ms) => server.advanceTime(ms) });
}
