/**
 * Case-insensitive header access over the shapes frameworks hand us: fetch
 * `Headers` (or anything with `get`), Node's `IncomingHttpHeaders` and plain
 * objects in any letter case.
 *
 * @module
 */

/** Request headers: fetch `Headers`, Node's `req.headers`, or a plain object in any case. */
export type WebhookHeaderSource =
  | { get(name: string): string | null | undefined }
  | Readonly<Record<string, string | readonly string[] | number | undefined>>;

type HeaderValue = string | readonly string[] | number | undefined;

function firstValue(value: HeaderValue): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  // Several values for a header the service sends once: join them, as fetch
  // does, so the value fails its format check instead of picking one silently.
  return value.length === 0 ? undefined : value.join(', ');
}

/**
 * Reads one header, whatever the case of its name. `name` must be lower case.
 * Returns `undefined` when it is absent.
 */
export function getHeader(headers: WebhookHeaderSource, name: string): string | undefined {
  const getter = (headers as { get?: unknown }).get;
  if (typeof getter === 'function') {
    const v: unknown = getter.call(headers, name);
    return typeof v === 'string' ? v : undefined;
  }
  const record = headers as Readonly<Record<string, HeaderValue>>;
  // Node lower-cases incoming header names, so the direct read nearly always hits. Our
  // names (x-service-*, content-length) are never inherited from Object.prototype.
  const direct = record[name];
  if (direct !== undefined) return firstValue(direct);
  for (const key in record) {
    if (
      key.length === name.length &&
      key.toLowerCase() === name &&
      Object.prototype.hasOwnProperty.call(record, key)
    ) {
      return firstValue(record[key]);
    }
  }
  return undefined;
}
