/**
 * Connection liveness: send a WebSocket ping every `intervalMs`, and declare
 * the connection dead when nothing at all (pong, ping, message) has arrived
 * for `timeoutMs`. Time and timers come from a {@link Clock}.
 *
 * Activity is recorded as a timestamp (no timer churn per frame); the dead
 * check re-arms itself for the remaining time when activity happened since.
 *
 * @module
 */
import type { Clock, TimerHandle } from '../../core/clock.js';
import { ConfigurationError } from '../../core/errors/configuration-error.js';

/** Options of {@link createHeartbeat}. */
export interface HeartbeatOptions {
  /** Ping period, ms; 0 disables pings (the dead check still runs). @defaultValue `10000` */
  intervalMs?: number;
  /** Silence after which the connection is dead, ms; 0 disables the check. @defaultValue `25000` */
  timeoutMs?: number;
}

/** Defaults of {@link HeartbeatOptions}. */
export const DEFAULT_HEARTBEAT = {
  intervalMs: 10_000,
  timeoutMs: 25_000,
} as const satisfies Required<HeartbeatOptions>;

/** A running heartbeat. */
export interface Heartbeat {
  /** Something arrived from the peer. */
  activity(): void;
  /**
   * Suspends the dead check while the client itself stopped reading (flow
   * control): pongs cannot be seen then. Pings go on. Idempotent.
   */
  suspend(): void;
  /** Ends a suspension: counts as activity and restarts the dead check. Idempotent. */
  resume(): void;
  /** Stops every timer. Idempotent. */
  stop(): void;
}

/** What the heartbeat drives. */
export interface HeartbeatTarget {
  /** Sends a ping; absent when the socket cannot ping (browsers). */
  readonly ping: (() => void) | undefined;
  /** Called once when the connection is declared dead. */
  readonly onDead: () => void;
}

/** Checks heartbeat options. @throws {@link ConfigurationError} */
export function resolveHeartbeat(options: HeartbeatOptions = {}): Required<HeartbeatOptions> {
  const out = { ...DEFAULT_HEARTBEAT, ...options };
  for (const key of ['intervalMs', 'timeoutMs'] as const) {
    const v = out[key];
    if (!(Number.isFinite(v) && v >= 0)) {
      throw new ConfigurationError({
        option: `heartbeat.${key}`,
        message: `Option "heartbeat.${key}" must be ≥ 0.`,
      });
    }
  }
  return out;
}

/**
 * Starts a heartbeat now (the start counts as activity).
 *
 * @example
 * ```ts
 * const hb = createHeartbeat(clock, { intervalMs: 25_000, timeoutMs: 60_000 }, { ping: () => ws.ping(), onDead });
 * ws.on('pong', () => hb.activity());
 * ```
 */
export function createHeartbeat(
  clock: Clock,
  options: Required<HeartbeatOptions>,
  target: HeartbeatTarget,
): Heartbeat {
  let last = clock.now();
  let stopped = false;
  let suspended = false;
  let pingTimer: TimerHandle | undefined;
  let deadTimer: TimerHandle | undefined;

  const schedulePing = (): void => {
    if (target.ping === undefined || options.intervalMs === 0) return;
    pingTimer = clock.setTimeout(() => {
      if (stopped) return;
      try {
        target.ping?.();
      } catch {
        // A socket that cannot ping any more is caught by the dead check.
      }
      schedulePing();
    }, options.intervalMs);
  };
  const scheduleDead = (inMs: number): void => {
    if (options.timeoutMs === 0) return;
    deadTimer = clock.setTimeout(() => {
      if (stopped || suspended) return;
      const silentFor = clock.now() - last;
      if (silentFor >= options.timeoutMs) {
        stopped = true;
        if (pingTimer !== undefined) clock.clearTimeout(pingTimer);
        target.onDead();
      } else {
        scheduleDead(options.timeoutMs - silentFor);
      }
    }, inMs);
  };
  schedulePing();
  scheduleDead(options.timeoutMs);
  return {
    activity() {
      last = clock.now();
    },
    suspend() {
      if (stopped || suspended) return;
      suspended = true;
      if (deadTimer !== undefined) clock.clearTimeout(deadTimer);
      deadTimer = undefined;
    },
    resume() {
      if (stopped || !suspended) return;
      suspended = false;
      last = clock.now();
      scheduleDead(options.timeoutMs);
    },
    stop() {
      stopped = true;
      if (pingTimer !== undefined) clock.clearTimeout(pingTimer);
      if (deadTimer !== undefined) clock.clearTimeout(deadTimer);
    },
  };
}
