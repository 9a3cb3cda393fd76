/**
 * The progress line: anything that may take more than a second says what it
 * is waiting for on stderr, once, if it is still waiting after that second.
 *
 * @module
 */
import type { CliIo } from './io.js';

/** Schedules `fn` after `ms`; returns a cancel function. */
export type Schedule = (fn: () => void, ms: number) => () => void;

/** Real timers that never keep the process alive. */
export const realSchedule: Schedule = (fn, ms) => {
  const t = setTimeout(fn, ms);
  t.unref();
  return () => clearTimeout(t);
};

/** How long before the progress line appears, ms. */
export const PROGRESS_DELAY_MS = 1000;

/**
 * Awaits `work`; if it is still pending after {@link PROGRESS_DELAY_MS},
 * writes `<prefix>: <label>…` to stderr.
 */
export async function withProgress<T>(
  io: CliIo,
  prefix: string,
  label: string,
  work: Promise<T>,
  schedule: Schedule = realSchedule,
): Promise<T> {
  const cancel = schedule(() => io.stderr.write(`${prefix}: ${label}…\n`), PROGRESS_DELAY_MS);
  try {
    return await work;
  } finally {
    cancel();
  }
}
