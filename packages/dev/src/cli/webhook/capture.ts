/**
 * The capture format of `ams webhook verify` (and of `ams webhook sign
 * --print`): one HTTP request with its headers and raw body, in either of two
 * forms, told apart by the first non-blank character.
 *
 * 1. **HTTP/1.1 request text**, as a proxy or `nc -l` logs it: an optional
 *    request line (`POST /webhook HTTP/1.1`), `Name: value` header lines, a
 *    blank line (CRLF or LF line ends), then the body bytes exactly. When a
 *    `Content-Length` header is present and the capture has only extra line
 *    breaks after that many bytes (an editor's final newline), they are
 *    dropped; any other difference is kept and reported.
 * 2. **JSON** `{ "headers": { name: value }, "body": "<raw body text>" }`, or
 *    `"body_base64"` instead of `"body"` for bytes that are not UTF-8; optional
 *    `"method"` and `"url"`. Header values may be strings, numbers or arrays
 *    (joined with `, `, as fetch does).
 *
 * @module
 */
import { z } from 'zod';
import { UsageError } from '../args.js';

/** One captured request. Header names keep their captured case and order. */
export interface CapturedRequest {
  readonly format: 'http' | 'json';
  readonly method: string | undefined;
  /** Request target (path) or URL, when the capture has one. */
  readonly target: string | undefined;
  readonly headers: readonly (readonly [name: string, value: string])[];
  /** The raw body bytes. */
  readonly body: Uint8Array;
  /** What the parser adjusted or noticed, in words (e.g. a trimmed final newline). */
  readonly notes: readonly string[];
}

/** The JSON form of a capture. */
export const CaptureJsonSchema = z.looseObject({
  method: z.string().optional(),
  url: z.string().optional(),
  headers: z.record(z.string(), z.union([z.string(), z.number(), z.array(z.string())])),
  body: z.string().optional(),
  body_base64: z.string().optional(),
});
/** A capture in its JSON form (wire-style snake_case field names). */
export type CaptureJson = z.infer<typeof CaptureJsonSchema>;

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/;
const REQUEST_LINE = /^([A-Z]+) (\S+) HTTP\/\d(?:\.\d)?$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A header's value, any case; repeated headers are joined with `, ` (as fetch does). */
export function headerOf(req: Pick<CapturedRequest, 'headers'>, name: string): string | undefined {
  const lower = name.toLowerCase();
  const values = req.headers.filter(([n]) => n.toLowerCase() === lower).map(([, v]) => v);
  return values.length === 0 ? undefined : values.join(', ');
}

/** The headers as one object with lower-case names (repeated ones joined). */
export function headerRecord(req: Pick<CapturedRequest, 'headers'>): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name] of req.headers) out[name.toLowerCase()] = headerOf(req, name)!;
  return out;
}

function bad(message: string): UsageError {
  return new UsageError(`capture: ${message}`);
}

function indexOfBytes(hay: Uint8Array, needle: readonly number[], from = 0): number {
  outer: for (let i = from; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

function splitHead(bytes: Uint8Array): { head: Uint8Array; body: Uint8Array | undefined } {
  const crlf = indexOfBytes(bytes, [13, 10, 13, 10]);
  const lf = indexOfBytes(bytes, [10, 10]);
  const candidates = [
    crlf === -1 ? undefined : ([crlf, 4] as const),
    lf === -1 ? undefined : ([lf, 2] as const),
  ]
    .filter((c) => c !== undefined)
    .sort((a, b) => a[0] - b[0]);
  const first = candidates[0];
  if (first === undefined) return { head: bytes, body: undefined };
  return { head: bytes.subarray(0, first[0]), body: bytes.subarray(first[0] + first[1]) };
}

function fitToContentLength(body: Uint8Array, declared: string | undefined, notes: string[]): Uint8Array {
  if (declared === undefined) return body;
  if (!/^\d{1,10}$/.test(declared)) {
    notes.push(`Content-Length "${declared}" is not a number of bytes`);
    return body;
  }
  const length = Number(declared);
  if (body.length > length && body.subarray(length).every((b) => b === 10 || b === 13)) {
    notes.push(
      `dropped ${body.length - length} line-break byte(s) after the ${length} bytes of Content-Length`,
    );
    return body.subarray(0, length);
  }
  if (body.length !== length) {
    notes.push(`Content-Length says ${length} bytes but the captured body has ${body.length}`);
  }
  return body;
}

function parseHttp(bytes: Uint8Array): CapturedRequest {
  let start = 0;
  while (start < bytes.length && (bytes[start] === 10 || bytes[start] === 13)) start++;
  const { head, body } = splitHead(bytes.subarray(start));
  // A mixed CRLF head that ends in CR LF LF leaves a CR on its last line.
  const lines = new TextDecoder()
    .decode(head)
    .split(/\r?\n/)
    .map((l) => l.replace(/\r$/, ''));
  const notes: string[] = [];
  let method: string | undefined;
  let target: string | undefined;
  const request = REQUEST_LINE.exec(lines[0] ?? '');
  if (request !== null) {
    [, method, target] = request;
    lines.shift();
  }
  const headers: [string, string][] = [];
  lines.forEach((line, i) => {
    const m = HEADER_LINE.exec(line);
    if (m === null) {
      const n = i + (request === null ? 1 : 2);
      throw bad(`line ${n} is neither a request line nor a "Name: value" header`);
    }
    headers.push([m[1]!, m[2]!]);
  });
  if (headers.length === 0) throw bad('no headers found');
  if (body === undefined) notes.push('no blank line after the headers: the body is empty');
  const raw = body ?? new Uint8Array();
  const fitted = fitToContentLength(raw, headerOf({ headers }, 'content-length'), notes);
  return { format: 'http', method, target, headers, body: new Uint8Array(fitted), notes };
}

function parseJsonCapture(text: string): CapturedRequest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw bad('starts with "{" but is not valid JSON');
  }
  const parsed = CaptureJsonSchema.safeParse(value);
  if (!parsed.success) {
    throw bad('JSON form needs "headers" (an object of strings) and "body" (a string) or "body_base64"');
  }
  const c = parsed.data;
  if ((c.body === undefined) === (c.body_base64 === undefined)) {
    throw bad('JSON form needs exactly one of "body" and "body_base64"');
  }
  if (c.body_base64 !== undefined && !BASE64.test(c.body_base64)) throw bad('"body_base64" is not base64');
  const headers: [string, string][] = [];
  for (const [name, v] of Object.entries(c.headers)) {
    if (!TOKEN.test(name)) throw bad(`"${name.slice(0, 40)}" is not a header name`);
    headers.push([name, Array.isArray(v) ? v.join(', ') : String(v)]);
  }
  const body =
    c.body !== undefined
      ? new TextEncoder().encode(c.body)
      : new Uint8Array(Buffer.from(c.body_base64!, 'base64'));
  return { format: 'json', method: c.method, target: c.url, headers, body, notes: [] };
}

/**
 * Parses a capture in either form.
 *
 * @throws {@link UsageError} saying what is wrong with the capture (never quoting header values).
 * @example
 * ```ts
 * const req = parseCapture(await readFile('delivery.http'));
 * headerOf(req, 'x-service-signature');
 * ```
 */
export function parseCapture(bytes: Uint8Array): CapturedRequest {
  let i = 0;
  while (i < bytes.length && (bytes[i] === 32 || bytes[i] === 9 || bytes[i] === 10 || bytes[i] === 13)) i++;
  if (i === bytes.length) throw bad('empty input');
  if (bytes[i] === 0x7b) return parseJsonCapture(new TextDecoder().decode(bytes));
  return parseHttp(bytes);
}

/** `x-service-delivery-id` → `X-Service-Delivery-Id`. */
export function canonicalHeaderName(name: string): string {
  return name
    .split('-')
    .map((w) => (w.length === 0 ? w : w[0]!.toUpperCase() + w.slice(1).toLowerCase()))
    .join('-');
}

/** A request to write out as a capture. */
export interface CaptureInput {
  readonly method: string;
  /** The full URL: its path becomes the request target, its host the `Host` header. */
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

/** Writes the HTTP/1.1 form (CRLF line ends, `Host` and `Content-Length` added, body exact). */
export function formatHttpCapture(req: CaptureInput): Uint8Array {
  let head = `${req.method} ${req.url.pathname}${req.url.search} HTTP/1.1\r\nHost: ${req.url.host}\r\n`;
  const names = Object.keys(req.headers).filter((n) => !['host', 'content-length'].includes(n.toLowerCase()));
  for (const name of names) head += `${canonicalHeaderName(name)}: ${req.headers[name]}\r\n`;
  head += `Content-Length: ${req.body.length}\r\n\r\n`;
  const headBytes = new TextEncoder().encode(head);
  const out = new Uint8Array(headBytes.length + req.body.length);
  out.set(headBytes);
  out.set(req.body, headBytes.length);
  return out;
}

/** Writes the JSON form (`body` when the body is UTF-8, else `body_base64`), one line. */
export function formatJsonCapture(req: CaptureInput): string {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) headers[canonicalHeaderName(name)] = value;
  headers['Content-Length'] = String(req.body.length);
  let text: string | undefined;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(req.body);
  } catch {
    text = undefined;
  }
  const body =
    text === undefined ? { body_base64: Buffer.from(req.body).toString('base64') } : { body: text };
  return `${JSON.stringify({ method: req.method, url: req.url.href, headers, ...body })}\n`;
}
