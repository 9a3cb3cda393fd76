/**
 * The object-storage and file rows of the service's V1 Limits table, one
 * module-level constant each, so that the `./webhook` entry (ref fetcher and
 * rate limiter) bundles only the figures it uses. `LIMITS`
 * (core/limits.ts) holds the same values under the same names; prefer it
 * everywhere else.
 *
 * @module
 */

/** Object fetches (`GET /r2/<key>`) per second per agent. */
export const OBJECT_FETCHES_PER_SECOND = 5;
/** File uploads per second per agent. */
export const FILE_UPLOADS_PER_SECOND = 5;
/** Maximum size of one file: 100 MB. */
export const FILE_MAX_BYTES = 100 * 1_048_576;
