/**
 * Waiting until a point in a {@link Clock}'s time, checking again at least
 * every `pollMs`: with a virtual clock whose `now()` jumps (tests advance the
 * service's time) the wait ends soon after the jump instead of sleeping the
 * whole real duration.
 *
 * @module
 */
import type { Clock } from '../../core/clock.js';

/** How often a wait looks at the clock again, ms. */
export const WAIT_POLL_MS = 250;

/**
 * Resolves once `clock.now() >= atMs`.
 *
 * @throws the signal's reason when `signal` aborts first.
 */
export function waitUntil(
  clock: Clock,
  atMs: number,
  signal?: AbortSignal,
  pollMs = WAIT_POLL_MS,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let timer: ReturnType<Clock['setTimeout']> | undefined;
    const onAbort = (): void => {
      if (timer !== undefined) clock.clearTimeout(timer);
      reject(signal?.reason);
    };
    const check = (): void => {
      const left = atMs - clock.now();
      if (left <= 0) {
        signal?.removeEventListener('abort', onAbort);
        resolve();
        return;
      }
      timer = clock.setTimeout(check, Math.min(left, pollMs));
    };
    if (signal?.aborted === true) {
      reject(signal.reason);
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    check();
  });
}
