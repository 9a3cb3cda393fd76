/**
 * The one way a handler refuses a request: throw a {@link ServerFailure} with a
 * catalogue code. The app turns it into `{ error: { code, message, i18n_key, params } }`
 * with the catalogue's HTTP status.
 *
 * @module
 */
import { statusOf, type ErrorCode } from 'agent-messaging-sdk/protocol';

/** Fields of a {@link ServerFailure}. */
export interface ServerFailureOptions {
  /** Catalogue code; the status comes from the catalogue. */
  readonly code: ErrorCode;
  /** Fallback display text. Never contains secrets or request values. */
  readonly message: string;
  /** Translation parameters (bounds, field names, retry_after). */
  readonly params?: Readonly<Record<string, unknown>>;
  /** Extra response headers, e.g. `retry-after` or a cookie to clear. */
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
}

/** A request refused with a catalogue code. Thrown by handlers, caught by the app. */
export class ServerFailure extends Error {
  override readonly name = 'ServerFailure';
  /** Catalogue code. */
  readonly code: ErrorCode;
  /** HTTP status from the catalogue. */
  readonly status: number;
  /** Translation parameters. */
  readonly params: Readonly<Record<string, unknown>>;
  /** Extra response headers. */
  readonly headers: Readonly<Record<string, string | readonly string[]>>;

  constructor(options: ServerFailureOptions) {
    super(options.message);
    this.code = options.code;
    this.status = statusOf(options.code);
    this.params = options.params ?? {};
    this.headers = options.headers ?? {};
  }
}

/** Shorthand: a failure with a code, a message and optional params. */
export function fail(
  code: ErrorCode,
  message: string,
  params?: Readonly<Record<string, unknown>>,
): ServerFailure {
  return new ServerFailure(params === undefined ? { code, message } : { code, message, params });
}

/**
 * A VALIDATION_ERROR naming one field and why it failed, plus optional bounds.
 *
 * @example
 * ```ts
 * throw invalidField('display_name', 'too_long', { min: 2, max: 24 });
 * ```
 */
export function invalidField(
  field: string,
  reason: string,
  extra: Readonly<Record<string, unknown>> = {},
  message = `Field '${field}' is invalid (${reason}).`,
): ServerFailure {
  return fail('VALIDATION_ERROR', message, { field, reason, ...extra });
}

/** A VALIDATION_ERROR about the request as a whole (body, content type). */
export function invalidRequest(
  reason: string,
  message: string,
  extra: Readonly<Record<string, unknown>> = {},
) {
  return fail('VALIDATION_ERROR', message, { reason, ...extra });
}

/** True for a {@link ServerFailure}. */
export function isServerFailure(err: unknown): err is ServerFailure {
  return err instanceof ServerFailure;
}
