import { AmsError, ERROR_CLASS_ID } from './base.js';

/** One problem found while validating data. */
export interface ValidationIssue {
  /** Path to the offending field, e.g. `['metadata', 'created_at']`. */
  readonly path: readonly (string | number)[];
  /** What is wrong, without the value itself. */
  readonly message: string;
}

/** Options of {@link ValidationError}. */
export interface ValidationErrorOptions {
  message: string;
  issues?: readonly ValidationIssue[];
  params?: Readonly<Record<string, unknown>>;
  cause?: unknown;
}

/**
 * Data failed validation on the client side: caller input, or a record
 * received from the service or a peer. Carries the issues (paths and reasons,
 * never the values).
 */
export class ValidationError extends AmsError {
  /** @internal */
  static override readonly [ERROR_CLASS_ID]: string = 'ValidationError';
  override readonly name: string = 'ValidationError';
  readonly kind = 'validation' as const;
  declare readonly code: 'VALIDATION_ERROR';
  /** The problems found. */
  readonly issues: readonly ValidationIssue[];

  constructor(options: ValidationErrorOptions) {
    super({
      code: 'VALIDATION_ERROR',
      message: options.message,
      params: options.params,
      cause: options.cause,
    });
    this.issues = Object.freeze([...(options.issues ?? [])]);
  }
}
