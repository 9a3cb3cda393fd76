import { ERROR_CLASS_ID } from './base.js';
import type { AnyErrorCode } from './codes.js';
import { ServiceError, type ServiceErrorOptions } from './service-error.js';

/**
 * The service limited the request (HTTP 429). {@link RateLimitError.retryAfterMs}
 * comes from the Retry-After header or `params.retry_after_ms`.
 */
export class RateLimitError<C extends AnyErrorCode = AnyErrorCode> extends ServiceError<C> {
  /** @internal */
  static override readonly [ERROR_CLASS_ID]: string = 'RateLimitError';
  override readonly name: string = 'RateLimitError';
  override readonly kind = 'rate_limit' as const;

  constructor(options: ServiceErrorOptions<C>) {
    super(options);
  }
}
