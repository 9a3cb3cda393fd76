/**
 * The one way the MCP bridge waits for its owner: bounded by a timeout on the
 * bridge's clock and by the MCP call's abort signal, whichever comes first.
 *
 * @module
 */
import { TimeoutError, type Clock } from '../protocol.js';

/**
 * Runs `start` and settles with what it settles with, unless `timeoutMs` on
 * `clock` passes first (a {@link TimeoutError} with `timeoutMessage`) or
 * `signal` aborts (its reason). `start` may return how to stop what it began;
 * it is called once, whoever wins.
 */
export function boundedWait<T>(
  clock: Clock,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  timeoutMessage: string,
  start: (resolve: (value: T) => void, reject: (error: unknown) => void) => (() => void) | void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const started: { stop?: (() => void) | void } = {};
    const finish = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      clock.clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      started.stop?.();
      settle();
    };
    const timer = clock.setTimeout(
      () => finish(() => reject(new TimeoutError({ message: timeoutMessage, timeoutMs }))),
      timeoutMs,
    );
    const onAbort = (): void => finish(() => reject(signal?.reason));
    if (signal?.aborted === true) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    started.stop = start(
      (value) => finish(() => resolve(value)),
      (error) => finish(() => reject(error)),
    );
    // Settled while starting (an answer already there): stop what started now.
    if (settled) started.stop?.();
  });
}
