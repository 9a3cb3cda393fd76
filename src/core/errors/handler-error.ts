import { AmsError, type ErrorKind } from './base.js';

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
 * original is in `cause`. Routed to one error channel; never crashes the process.
 */
export class HandlerError extends AmsError {
  override readonly name: string = 'HandlerError';
  readonly kind = 'handler' as const;
  protected static override readonly kinds: readonly ErrorKind[] = ['handler'];
  declare readonly code: 'HANDLER_FAILED';
  /** The event being handled. */
  readonly event: unknown;

  constructor(options: HandlerErrorOptions) {
    super({ code: 'HANDLER_FAILED', message: options.message, cause: options.cause });
    this.event = options.event;
  }
}
