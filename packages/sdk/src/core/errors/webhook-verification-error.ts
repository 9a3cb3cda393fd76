import { AmsError, ERROR_CLASS_ID } from './base.js';
import type { WebhookVerificationCode } from './codes.js';

/** Options of {@link WebhookVerificationError}. */
export interface WebhookVerificationErrorOptions {
  code: WebhookVerificationCode;
  message: string;
  /** HTTP status the receiver should answer with. */
  status: number;
  params?: Readonly<Record<string, unknown>>;
  cause?: unknown;
}

/**
 * An incoming webhook delivery was rejected. `status` is the HTTP status to
 * answer with; `code` says why.
 */
export class WebhookVerificationError extends AmsError {
  /** @internal */
  static override readonly [ERROR_CLASS_ID]: string = 'WebhookVerificationError';
  override readonly name: string = 'WebhookVerificationError';
  readonly kind = 'webhook_verification' as const;
  declare readonly code: WebhookVerificationCode;
  declare readonly status: number;

  constructor(options: WebhookVerificationErrorOptions) {
    super(options);
  }
}

export type { WebhookVerificationCode };
