/**
 * Times on the command line: Unix seconds (`1767225600`) or an ISO 8601
 * date-time with a zone (`2026-01-01T00:00:00Z`, `2026-01-01T01:00:00.250+01:00`).
 *
 * @module
 */
import { UsageError } from './args.js';

const UNIX_SECONDS = /^\d{1,12}$/;
const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Parses a time given on the command line into ms since the epoch.
 *
 * @throws {@link UsageError} naming `option` when the text is neither form, or names no real date.
 * @example
 * ```ts
 * parseTimeArg('1767225600', '--now'); // 1767225600000
 * parseTimeArg('2026-01-01T00:00:00Z', '--now'); // 1767225600000
 * ```
 */
export function parseTimeArg(text: string, option: string): number {
  if (UNIX_SECONDS.test(text)) return Number(text) * 1000;
  const m = ISO.exec(text);
  if (m !== null) {
    const [, y, mo, d, h, mi, s = '00'] = m;
    const ms = Date.parse(text);
    // Date.parse rolls over impossible dates (Feb 30); check the fields survived.
    const local = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}Z`);
    if (
      Number.isFinite(ms) &&
      ms >= 0 &&
      local.getUTCDate() === Number(d) &&
      local.getUTCMonth() + 1 === Number(mo) &&
      local.getUTCHours() === Number(h)
    )
      return ms;
  }
  throw new UsageError(
    `${option} must be Unix seconds (e.g. 1767225600) or an ISO 8601 time with a zone (e.g. 2026-01-01T00:00:00Z)`,
  );
}
