/**
 * A time limit on one store operation, read from a {@link Clock}: the
 * operation's promise, or a {@link index!TimeoutError | TimeoutError} once
 * `ms` have passed, whichever comes first. A late failure of the operation is
 * swallowed (nobody awaits it any more); a late success is the caller's to
 * clean up (see `onTimeout`).
 *
 * @module
 */
import type { Clock } from '../../core/clock.js';
import { TimeoutError } from '../../core/errors/timeout-error.js';

/**
 * Runs `work` under a time limit of `ms` of `clock`'s time. `onTimeout` runs
 * when the limit expires first, before the returned promise rejects.
 */
export function withTimeLimit<T>(
  work: () => Promise<T>,
  limit: {
    readonly ms: number;
    readonly clock: Clock;
    readonly what: string;
    readonly onTimeout?: () => void;
  },
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const timer = limit.clock.setTimeout(() => {
      if (done) return;
      done = true;
      limit.onTimeout?.();
      reject(
        new TimeoutError({
          message: `${limit.what} did not finish within ${limit.ms} ms.`,
          timeoutMs: limit.ms,
        }),
      );
    }, limit.ms);
    let running: Promise<T>;
    try {
      running = work();
    } catch (error) {
      running = Promise.reject(error);
    }
    running.then(
      (value) => {
        if (done) return;
        done = true;
        limit.clock.clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        if (done) return;
        done = true;
        limit.clock.clearTimeout(timer);
        reject(error);
      },
    );
  });
}
