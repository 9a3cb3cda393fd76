import type { ErrorKind } from './base.js';
import type { AnyErrorCode } from './codes.js';
import { ServiceError, type ServiceErrorOptions } from './service-error.js';

/**
 * The service limited the request (HTTP 429). {@link RateLimitError.retryAfterMs}
 * comes from the Retry-After header or `params.retry_after_ms`.
 */
export class RateLimitError<C extends AnyErrorCode = AnyErrorCode> extends ServiceError<C> {
  override readonly name: string = 'RateLimitError';
  override readonly kind = 'rate_limit' as const;
  protected static override readonly kinds: readonly ErrorKind[] = ['rate_limit'];

  constructor(options: ServiceErrorOptions<C>) {
    super(options);
  }
}
