import { AmsError, ERROR_CLASS_ID, type AmsErrorOptions } from './base.js';
import type { AnyErrorCode } from './codes.js';

/** Options of {@link ServiceError}. */
export interface ServiceErrorOptions<C extends AnyErrorCode = AnyErrorCode> extends AmsErrorOptions {
  code: C;
  status: number;
}

/**
 * The service answered with an error object (`{ error: { code, message, i18n_key, params } }`).
 * `code` is the catalogue code, or an unknown code kept as-is.
 *
 * @example
 * ```ts
 * if (isServiceError(err, 'RELATION_REVOKED')) forgetConversation(err.params.conversation_id);
 * ```
 */
export class ServiceError<C extends AnyErrorCode = AnyErrorCode> extends AmsError {
  /** @internal */
  static override readonly [ERROR_CLASS_ID]: string = 'ServiceError';
  override readonly name: string = 'ServiceError';
  readonly kind: 'service' | 'rate_limit' = 'service';
  declare readonly code: C;
  declare readonly status: number;

  constructor(options: ServiceErrorOptions<C>) {
    super(options);
  }
}
