/**
 * The service's error object, `{ error: { code, message, i18n_key, params } }`,
 * and a builder for it (used by the reference server and by tests).
 *
 * @module
 */
import * as z from '../lazy-zod.js';
import type { AnyErrorCode } from '../errors/index.js';

/** The error object inside an error answer. Branch on `code` only; never parse `message`. */
export const ErrorObjectSchema = z.looseObject({
  /** Stable machine enum. Unknown codes are kept as-is. */
  code: z.string().min(1).max(100),
  /** Fallback display text. Must not be parsed. */
  message: z.string(),
  /** Client translation key; see {@link i18nKeyFor}. */
  i18n_key: z.string(),
  /** Template parameters, e.g. `min`/`max` bounds or `retry_after_ms`. */
  params: z.record(z.string(), z.unknown()),
});
/** The service's error object (wire field names). */
export type ErrorObject = z.output<typeof ErrorObjectSchema>;

/** A whole error answer: the error object under the key `error`. */
export const ErrorResponseSchema = z.looseObject({ error: ErrorObjectSchema });
/** A whole error answer. */
export type ErrorResponse = z.output<typeof ErrorResponseSchema>;

/**
 * The translation key of a code. Rule: `errors.` followed by the code in
 * lower case, e.g. `RATE_LIMITED` → `errors.rate_limited`. The service
 * interface does not show its keys; this is the SDK's (and the reference
 * server's) convention.
 *
 * @example
 * ```ts
 * i18nKeyFor('DEVICE_NAME_TAKEN'); // 'errors.device_name_taken'
 * ```
 */
export function i18nKeyFor(code: AnyErrorCode): string {
  return `errors.${code.toLowerCase()}`;
}

/**
 * Builds the wire error answer `{ error: { code, message, i18n_key, params } }`.
 * `i18n_key` follows {@link i18nKeyFor}; `params` defaults to `{}`.
 *
 * @example
 * ```ts
 * errorBody('VALIDATION_ERROR', 'display_name must be 2 to 24 characters', { field: 'display_name', min: 2, max: 24 });
 * ```
 */
export function errorBody(
  code: AnyErrorCode,
  message: string,
  params: Readonly<Record<string, unknown>> = {},
): ErrorResponse {
  return { error: { code, message, i18n_key: i18nKeyFor(code), params: { ...params } } };
}
