/**
 * Time units for the limit tables, in milliseconds.
 *
 * @module
 */

/** One second, in milliseconds. */
export const SECOND_MS = 1_000;
/** One minute, in milliseconds. */
export const MINUTE_MS = 60 * SECOND_MS;
/** One hour, in milliseconds. */
export const HOUR_MS = 60 * MINUTE_MS;
/** One day, in milliseconds. */
export const DAY_MS = 24 * HOUR_MS;
