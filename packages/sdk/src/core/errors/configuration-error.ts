import { AmsError, ERROR_CLASS_ID } from './base.js';

/** Options of {@link ConfigurationError}. */
export interface ConfigurationErrorOptions {
  message: string;
  /** The option at fault, e.g. `secret` or `agentId`. */
  option?: string;
  cause?: unknown;
}

/**
 * The SDK was set up wrongly (a bad option, a body already consumed by a JSON
 * parser). The message says what to change. Thrown at construction or on the
 * first request, never retried.
 */
export class ConfigurationError extends AmsError {
  /** @internal */
  static override readonly [ERROR_CLASS_ID]: string = 'ConfigurationError';
  override readonly name: string = 'ConfigurationError';
  readonly kind = 'configuration' as const;
  declare readonly code: 'CONFIGURATION_ERROR';
  /** The option at fault, when one is. */
  readonly option: string | undefined;

  constructor(options: ConfigurationErrorOptions) {
    super({ code: 'CONFIGURATION_ERROR', message: options.message, cause: options.cause });
    this.option = options.option;
  }
}
