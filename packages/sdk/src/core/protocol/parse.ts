/**
 * The one way the protocol model turns untrusted input into typed records:
 * run a zod schema and, on failure, throw a {@link ValidationError} whose
 * issues carry paths and reasons but never the offending values.
 *
 * @module
 */
import type { z } from 'zod';
import { redactSecrets, ValidationError, type ValidationIssue } from '../errors/index.js';

/** At most this many issues are reported; a hostile body cannot make an error huge. */
const MAX_ISSUES = 20;
/** Issue messages are capped so that a schema message can never carry a long value. */
const MAX_MESSAGE_CHARS = 200;

const MAX_SEGMENT_CHARS = 100;

// Object keys come from the input too (zod quotes unrecognised keys), so both
// path segments and messages are redacted and capped.
function clean(text: string, max: number): string {
  return redactSecrets(text.length > max ? `${text.slice(0, max)}…` : text);
}

function toIssue(issue: z.core.$ZodIssue): ValidationIssue {
  const path = issue.path.map((p) =>
    typeof p === 'number' ? p : clean(typeof p === 'symbol' ? String(p.description) : p, MAX_SEGMENT_CHARS),
  );
  return { path, message: clean(issue.message, MAX_MESSAGE_CHARS) };
}

function describe(what: string, issues: readonly ValidationIssue[]): string {
  const first = issues[0];
  if (first === undefined) return `Invalid ${what}.`;
  const where = first.path.length === 0 ? '(root)' : first.path.join('.');
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue(s))` : '';
  return `Invalid ${what}: ${where}: ${first.message}${more}`;
}

/**
 * Builds a {@link ValidationError} from issues. The message names the first
 * path and reason only; values are never included.
 */
export function validationError(
  what: string,
  issues: readonly ValidationIssue[],
  cause?: unknown,
): ValidationError {
  const capped = issues.slice(0, MAX_ISSUES);
  return new ValidationError({ message: describe(what, capped), issues: capped, cause });
}

/**
 * Parses `input` with `schema`. Throws only {@link ValidationError}: schema
 * failures and anything unexpected (a throwing getter, a hostile proxy) alike.
 *
 * @param what - a short name of the record for the message, e.g. `webhook delivery body`.
 * @throws {@link ValidationError} when `input` does not match `schema`.
 */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  let issues: ValidationIssue[];
  try {
    const result = schema.safeParse(input);
    if (result.success) return result.data as z.output<S>;
    // zod builds issue messages lazily, and that may touch the input again.
    issues = result.error.issues.map(toIssue);
  } catch {
    // A throwing getter or proxy trap. Its error is not kept: it could quote anything.
    issues = [{ path: [], message: 'Input could not be inspected' }];
  }
  throw validationError(what, issues);
}

/**
 * Parses JSON text (or UTF-8 bytes of JSON). Throws only {@link ValidationError}.
 *
 * @throws {@link ValidationError} when the input is not a string/bytes, not
 * valid UTF-8 or not valid JSON. The message never quotes the input.
 */
export function parseJson(input: string | Uint8Array, what = 'JSON'): unknown {
  let text: string;
  if (typeof input === 'string') {
    text = input;
  } else if (isBytes(input)) {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(input);
    } catch {
      throw validationError(what, [{ path: [], message: 'Not valid UTF-8' }]);
    }
  } else {
    throw validationError(what, [{ path: [], message: 'Expected a string or bytes' }]);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // The SyntaxError's message quotes the input, so it is deliberately not kept as cause.
    throw validationError(what, [{ path: [], message: 'Malformed JSON' }]);
  }
}

/**
 * True when `input` is an object with an own property named by any of `keys`.
 * Never throws (a hostile proxy counts as "no").
 */
export function hasAnyOwn(input: unknown, keys: readonly string[]): boolean {
  if (typeof input !== 'object' || input === null) return false;
  try {
    return keys.some((k) => Object.hasOwn(input, k));
  } catch {
    return false;
  }
}

function isBytes(input: unknown): input is Uint8Array {
  try {
    return input instanceof Uint8Array;
  } catch {
    return false;
  }
}

/**
 * Reads `input[key]` when `input` is an object, else `undefined`. Never
 * throws (a throwing getter or proxy trap reads as `undefined`).
 */
export function readProp(input: unknown, key: string): unknown {
  if (typeof input !== 'object' || input === null) return undefined;
  try {
    return (input as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}
