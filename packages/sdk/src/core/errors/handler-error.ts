import { AmsError, ERROR_CLASS_ID } from './base.js';

/** Options of {@link HandlerError}. */
export interface HandlerErrorOptions {
  message: string;
  /** The event being handled when the handler threw. */
  event: unknown;
  /** What the handler threw. */
  cause: unknown;
}

/**
 * A user handler threw or rejected. Carries the event it was handling; the
 * original (with its stack) is in `cause`, and its message is part of this
 * one. Routed to one error channel; never crashes the process.
 * `console.error(err)` prints both stacks; `event` is not enumerable, so the
 * (decrypted) event is not printed with it.
 */
export class HandlerError extends AmsError {
  /** @internal */
  static override readonly [ERROR_CLASS_ID]: string = 'HandlerError';
  override readonly name: string = 'HandlerError';
  readonly kind = 'handler' as const;
  declare readonly code: 'HANDLER_FAILED';
  /** The event being handled (not enumerable: kept out of printed errors). */
  declare readonly event: unknown;

  constructor(options: HandlerErrorOptions) {
    super({ code: 'HANDLER_FAILED', message: options.message, cause: options.cause });
    Object.defineProperty(this, 'event', { value: options.event, enumerable: false, writable: false });
  }
}
