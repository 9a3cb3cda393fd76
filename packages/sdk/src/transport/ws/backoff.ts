/**
 * Reconnect back-off: full-jitter exponential (each delay uniform in
 * `[0, min(capMs, baseMs * 2^(n-1))]`), reset once a connection has stayed
 * up for `stableAfterMs`. Full jitter spreads a fleet of agents that lost the
 * service at the same moment, so they do not all return at once.
 *
 * @module
 */
import { ConfigurationError } from '../../core/errors/configuration-error.js';
import { fullJitterDelay } from '../rest/retry.js';

/** Options of {@link createBackoff}. */
export interface BackoffOptions {
  /** Ceiling of the first delay, ms. @defaultValue `1000` */
  baseMs?: number;
  /** Largest ceiling, ms. @defaultValue `30000` */
  capMs?: number;
  /** A connection open this long counts as stable and resets the back-off, ms. @defaultValue `30000` */
  stableAfterMs?: number;
  /** Random source in [0, 1). @defaultValue `Math.random` */
  random?: () => number;
}

/** Defaults of {@link BackoffOptions}. */
export const DEFAULT_BACKOFF = {
  baseMs: 1000,
  capMs: 30_000,
  stableAfterMs: 30_000,
} as const satisfies Required<Omit<BackoffOptions, 'random'>>;

/** Back-off state of one dispatcher. */
export interface Backoff {
  /** The delay before the next attempt; counts the attempt. */
  next(): number;
  /** Attempts since the last reset. */
  readonly attempt: number;
  /** The ceiling the next delay is drawn under (for tests and logs). */
  readonly ceilingMs: number;
  /** A connection opened at `atMs` (authenticated). */
  connected(atMs: number): void;
  /** The connection ended at `atMs`; resets when it lasted `stableAfterMs` or more. */
  disconnected(atMs: number): void;
  /** Back to the first attempt. */
  reset(): void;
}

function check(value: number, option: string): number {
  if (!(Number.isFinite(value) && value >= 0)) {
    throw new ConfigurationError({ option, message: `Option "${option}" must be a finite number ≥ 0.` });
  }
  return value;
}

/**
 * Creates back-off state.
 *
 * @throws {@link ConfigurationError} for negative or non-finite figures.
 * @example
 * ```ts
 * const backoff = createBackoff({ baseMs: 500, capMs: 10_000 });
 * const delay = backoff.next(); // 0..500, then 0..1000, 0..2000, … capped at 10 s
 * ```
 */
export function createBackoff(options: BackoffOptions = {}): Backoff {
  const baseMs = check(options.baseMs ?? DEFAULT_BACKOFF.baseMs, 'backoff.baseMs');
  const capMs = check(options.capMs ?? DEFAULT_BACKOFF.capMs, 'backoff.capMs');
  const stableAfterMs = check(
    options.stableAfterMs ?? DEFAULT_BACKOFF.stableAfterMs,
    'backoff.stableAfterMs',
  );
  const random = options.random ?? Math.random;
  let attempt = 0;
  let connectedAt: number | undefined;
  return {
    next() {
      attempt += 1;
      return fullJitterDelay(attempt, baseMs, capMs, random);
    },
    get attempt() {
      return attempt;
    },
    get ceilingMs() {
      return Math.min(capMs, baseMs * 2 ** attempt);
    },
    connected(atMs) {
      connectedAt = atMs;
    },
    disconnected(atMs) {
      if (connectedAt !== undefined && atMs - connectedAt >= stableAfterMs) attempt = 0;
      connectedAt = undefined;
    },
    reset() {
      attempt = 0;
      connectedAt = undefined;
    },
  };
}
