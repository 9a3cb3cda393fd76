import { AmsError, ERROR_CLASS_ID } from './base.js';
import type { TransportErrorCode } from './codes.js';

/** Options of {@link TransportError}. */
export interface TransportErrorOptions {
  code: TransportErrorCode;
  message: string;
  status?: number | undefined;
  requestId?: string | undefined;
  retryAfterMs?: number | undefined;
  cause?: unknown;
}

/**
 * The HTTP or WebSocket exchange failed before a well-formed service answer
 * arrived: a network error, a non-JSON error body (`status` kept), a closed
 * socket, a frame that breaks the protocol. The original error is in `cause`.
 */
export class TransportError extends AmsError {
  /** @internal */
  static override readonly [ERROR_CLASS_ID]: string = 'TransportError';
  override readonly name: string = 'TransportError';
  readonly kind = 'transport' as const;
  declare readonly code: TransportErrorCode;

  constructor(options: TransportErrorOptions) {
    super(options);
  }
}

export type { TransportErrorCode };
