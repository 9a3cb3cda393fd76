/**
 * Field-level schemas shared by the records: strict base64, timestamps,
 * UUIDs and identifiers. Messages name the rule, never the value.
 *
 * @module
 */
import * as z from '../lazy-zod.js';
import { fromBase64, isBase64 } from '../encoding.js';
import { hasControlChar, IDENTIFIER_MAX_CHARS } from '../field-rules.js';
import { isIsoUtcMillis } from '../timestamps.js';

/**
 * Canonical, padded, standard base64 (see `isBase64`), optionally of an exact
 * decoded length in bytes.
 */
export function base64Schema(options: { bytes?: number; minBytes?: number; maxChars?: number } = {}) {
  const { bytes, minBytes = 0, maxChars } = options;
  let s = z.string();
  if (maxChars !== undefined) s = s.max(maxChars);
  return s.superRefine((text, ctx) => {
    if (!isBase64(text)) {
      ctx.addIssue({ code: 'custom', message: 'Must be canonical padded base64' });
      return;
    }
    const decoded = fromBase64(text)?.length ?? 0;
    if (bytes !== undefined && decoded !== bytes) {
      ctx.addIssue({ code: 'custom', message: `Must decode to exactly ${bytes} bytes` });
    } else if (decoded < minBytes) {
      ctx.addIssue({ code: 'custom', message: `Must decode to at least ${minBytes} byte(s)` });
    }
  });
}

export { isIsoUtcMillis } from '../timestamps.js';

/** `YYYY-MM-DDTHH:mm:ss.sssZ`, a real instant. */
export const IsoUtcMillisSchema = z.string().refine(isIsoUtcMillis, {
  message: 'Must be an ISO 8601 UTC timestamp with milliseconds (YYYY-MM-DDTHH:mm:ss.sssZ)',
});

const ISO_WITH_ZONE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * True for an ISO 8601 / RFC 3339 timestamp that carries a time zone (`Z` or
 * an offset), any fractional precision, naming a real calendar date and time.
 */
export function isTimestampWithZone(text: string): boolean {
  const m = ISO_WITH_ZONE.exec(text);
  if (m === null) return false;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return false;
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return d <= daysInMonth && !Number.isNaN(Date.parse(text.replace(' ', 'T')));
}

/** A timestamp with time zone (RFC 3339: `Z` or `±hh:mm`). */
export const TimestampWithZoneSchema = z
  .string()
  .refine(isTimestampWithZone, { message: 'Must be an ISO 8601 timestamp with a time zone' });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** True for a UUID in its 8-4-4-4-12 hex form (any version). */
export function isUuid(text: string): boolean {
  return UUID.test(text);
}

/** True for a UUID version 7 (version nibble 7, RFC 9562 variant `10xx`). */
export function isUuidV7(text: string): boolean {
  return UUID_V7.test(text);
}

/** A UUID, any version, 8-4-4-4-12 hex. */
export const UuidSchema = z.string().refine(isUuid, { message: 'Must be a UUID (8-4-4-4-12 hex)' });

/** A UUID v7 (version nibble 7, variant 10xx), as used for delivery ids. */
export const UuidV7Schema = z
  .string()
  .refine(isUuidV7, { message: 'Must be a UUID v7 (version 7, RFC 9562 variant)' });

export { hasControlChar } from '../field-rules.js';

/**
 * An opaque identifier chosen by the service (conversation, sender, user,
 * grant ids): 1 to 256 characters, no control characters. The service does
 * not show their format, so nothing more is assumed.
 */
export const IdentifierSchema = z
  .string()
  .min(1)
  .max(IDENTIFIER_MAX_CHARS)
  .refine((s) => !hasControlChar(s), { message: 'Must not contain control characters' });
