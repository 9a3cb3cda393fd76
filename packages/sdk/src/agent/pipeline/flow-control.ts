/**
 * WebSocket flow control of the Agent: counts the events received but not
 * finished (and their approximate bytes) and asks the socket to stop reading
 * above a high-water mark, and to read again at or below a low-water mark.
 * TCP backpressure then reaches the service. The transport applies the wish
 * only after `auth.ok` and only on sockets with `pause()` / `resume()`.
 *
 * @module
 */
import { ConfigurationError } from '../../core/errors/configuration-error.js';
import type { Logger } from '../../core/logger.js';

/** Water marks of the Agent's WebSocket flow control. */
export interface FlowControlOptions {
  /** Pause reading when more events than this are received but not finished. @defaultValue `1024` */
  highWaterMark?: number;
  /** Read again when at most this many are. @defaultValue half of `highWaterMark` (`512`) */
  lowWaterMark?: number;
  /** Pause reading when the events in flight hold more bytes than this. @defaultValue `67108864` (64 MiB) */
  highWaterBytes?: number;
  /** Read again when they hold at most this many bytes. @defaultValue half of `highWaterBytes` (32 MiB) */
  lowWaterBytes?: number;
}

/** Defaults of {@link FlowControlOptions}. */
export const DEFAULT_FLOW_CONTROL = {
  highWaterMark: 1024,
  lowWaterMark: 512,
  highWaterBytes: 64 * 1024 * 1024,
  lowWaterBytes: 32 * 1024 * 1024,
} as const satisfies Required<FlowControlOptions>;

/** Flow-control figures in `agent.stats()`. */
export interface FlowStats {
  /** True while the Agent wants the socket paused (above a high-water mark, not yet at the low one). */
  readonly paused: boolean;
  /** Times reading was paused since start. */
  readonly pauses: number;
  /** WebSocket events received but not finished (being opened, queued or in their handlers). */
  readonly inFlight: number;
  /** Approximate bytes of those events (frame text length). */
  readonly inFlightBytes: number;
}

/** Flow stats when there is no flow control (webhook mode, before connect). */
export const IDLE_FLOW_STATS: FlowStats = Object.freeze({
  paused: false,
  pauses: 0,
  inFlight: 0,
  inFlightBytes: 0,
});

function bad(option: string, rule: string): ConfigurationError {
  return new ConfigurationError({ option, message: `Option "${option}" ${rule}.` });
}

function mark(o: FlowControlOptions, key: keyof FlowControlOptions, fallback: number, min: number): number {
  const v = o[key] ?? fallback;
  if (!Number.isSafeInteger(v) || v < min) {
    throw bad(`flowControl.${key}`, `must be an integer ≥ ${min}`);
  }
  return v;
}

/**
 * Checks the `flowControl` option; `false` turns flow control off.
 *
 * @throws {@link ConfigurationError} naming the bad field, e.g. `flowControl.lowWaterMark`.
 */
export function resolveFlowControl(
  o: FlowControlOptions | false | undefined,
): Required<FlowControlOptions> | false {
  if (o === false) return false;
  if (o === undefined) return { ...DEFAULT_FLOW_CONTROL };
  if (typeof o !== 'object' || o === null) throw bad('flowControl', 'must be an object or false');
  const highWaterMark = mark(o, 'highWaterMark', DEFAULT_FLOW_CONTROL.highWaterMark, 1);
  const lowWaterMark = mark(o, 'lowWaterMark', Math.floor(highWaterMark / 2), 0);
  if (lowWaterMark >= highWaterMark) throw bad('flowControl.lowWaterMark', 'must be below highWaterMark');
  const highWaterBytes = mark(o, 'highWaterBytes', DEFAULT_FLOW_CONTROL.highWaterBytes, 1);
  const lowWaterBytes = mark(o, 'lowWaterBytes', Math.floor(highWaterBytes / 2), 0);
  if (lowWaterBytes >= highWaterBytes) throw bad('flowControl.lowWaterBytes', 'must be below highWaterBytes');
  return { highWaterMark, lowWaterMark, highWaterBytes, lowWaterBytes };
}

/** What flow control drives: the dispatcher's read pausing. */
export interface FlowTarget {
  /** Stop (`true`) or restart reading; false when the socket cannot pause. */
  setReadPaused(paused: boolean): boolean;
}

/** The water-mark logic. */
export class FlowControl {
  readonly #limits: Required<FlowControlOptions> | false;
  readonly #target: FlowTarget;
  readonly #logger: Logger;
  #inFlight = 0;
  #bytes = 0;
  #paused = false;
  #pauses = 0;
  #warnedUnsupported = false;

  constructor(limits: Required<FlowControlOptions> | false, target: FlowTarget, logger: Logger) {
    this.#limits = limits;
    this.#target = target;
    this.#logger = logger;
  }

  /** An event of `bytes` was received. */
  enter(bytes: number): void {
    this.#inFlight += 1;
    this.#bytes += bytes;
    const l = this.#limits;
    if (l === false || this.#paused) return;
    if (this.#inFlight <= l.highWaterMark && this.#bytes <= l.highWaterBytes) return;
    if (!this.#target.setReadPaused(true)) {
      if (!this.#warnedUnsupported)
        this.#logger.info('the WebSocket has no pause(): no flow control on this socket');
      this.#warnedUnsupported = true;
      return;
    }
    this.#paused = true;
    this.#pauses += 1;
    this.#logger.debug('flow control: pausing reads', { inFlight: this.#inFlight, bytes: this.#bytes });
  }

  /** An event of `bytes` is finished with (handled, skipped, failed or dropped). */
  leave(bytes: number): void {
    this.#inFlight = Math.max(0, this.#inFlight - 1);
    this.#bytes = Math.max(0, this.#bytes - bytes);
    const l = this.#limits;
    if (l === false || !this.#paused) return;
    if (this.#inFlight > l.lowWaterMark || this.#bytes > l.lowWaterBytes) return;
    this.#paused = false;
    this.#target.setReadPaused(false);
    this.#logger.debug('flow control: resuming reads', { inFlight: this.#inFlight, bytes: this.#bytes });
  }

  /** Current figures. */
  stats(): FlowStats {
    return {
      paused: this.#paused,
      pauses: this.#pauses,
      inFlight: this.#inFlight,
      inFlightBytes: this.#bytes,
    };
  }
}
