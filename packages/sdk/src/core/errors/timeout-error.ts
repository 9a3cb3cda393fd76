import { AmsError, ERROR_CLASS_ID } from './base.js';

/** Options of {@link TimeoutError}. */
export interface TimeoutErrorOptions {
  message: string;
  /** The limit that ran out, in milliseconds. */
  timeoutMs: number;
  cause?: unknown;
}

/** A client-side deadline ran out (request, auth frame, handler drain). */
export class TimeoutError extends AmsError {
  /** @internal */
  static override readonly [ERROR_CLASS_ID]: string = 'TimeoutError';
  override readonly name: string = 'TimeoutError';
  readonly kind = 'timeout' as const;
  declare readonly code: 'TIMEOUT';
  /** The limit that ran out, in milliseconds. */
  readonly timeoutMs: number;

  constructor(options: TimeoutErrorOptions) {
    super({ code: 'TIMEOUT', message: options.message, cause: options.cause });
    this.timeoutMs = options.timeoutMs;
  }
}
