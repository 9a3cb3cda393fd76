/**
 * The mixed clock of a test world: `now()` from a virtual clock (the
 * service's), timers on real time, and waits on a time window (a rate
 * limit, a `Retry-After`) satisfied by moving the virtual time forward once
 * the requests already sent were answered, so that no wait on `now()` stalls
 * while the clock stands still.
 *
 * @module
 */
import { systemClock, type Clock, type TimerHandle, type TimerOptions } from 'agent-messaging-sdk/protocol';
import type { ReferenceServer } from '../server/index.js';

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
 *   after a 429) waits for `now()` to pass a point. It fires as soon as every
 *   request the clients on this clock sent before it is due (`track`) has its
 *   answer, that is once the service counted them in the window they were
 *   sent in, moving the virtual time forward to that point if it is not there
 *   yet. No real pause: a test that sends 100 messages in a row on a frozen
 *   clock completes; the virtual time moves by the windows it waited for.
 *
 * @example
 * ```ts
 * import { createMixedClock, ManualClock } from '@agent-messaging/dev/testing';
 *
 * const virtual = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
 * const clock = createMixedClock(virtual);
 * clock.setTimeout(() => console.log(clock.now() - Date.parse('2026-01-01T00:00:00Z')), 1_000, { window: true });
 * // prints 1000 at once: the window wait moved the virtual time forward
 * ```
 */
export function createMixedClock(virtual: VirtualTime, timers: Clock = systemClock): Clock {
  // Answers of requests sent and not yet answered (see Clock.track).
  const unanswered = new Set<Promise<unknown>>();
  // Window timers waiting for those answers: cancelled ones are skipped.
  const cancelled = new WeakSet<TimerHandle>();
  return {
    now: () => virtual.now(),
    setTimeout(fn, ms, options?: TimerOptions) {
      if (options?.window !== true) return timers.setTimeout(fn, ms, options);
      const due = virtual.now() + Math.max(0, ms);
      const fire = (): void => {
        if (cancelled.has(handle)) return;
        const behind = due - virtual.now();
        if (behind > 0) virtual.advance(behind);
        fn();
      };
      // A macrotask later, so requests admitted just before (their sends start
      // in microtasks) are tracked; then their answers, then the move.
      const handle = timers.setTimeout(() => {
        if (unanswered.size === 0) fire();
        else void Promise.allSettled([...unanswered]).then(fire);
      }, 0);
      return handle;
    },
    clearTimeout(handle) {
      cancelled.add(handle);
      timers.clearTimeout(handle);
    },
    track(answer) {
      unanswered.add(answer);
      const settled = (): void => void unanswered.delete(answer);
      answer.then(settled, settled);
    },
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
