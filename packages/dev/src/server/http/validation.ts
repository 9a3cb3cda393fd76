/**
 * Turning zod issues into one VALIDATION_ERROR whose `params` name the field,
 * the reason and, where the field has them, its bounds. Values are never
 * echoed back.
 *
 * @module
 */
import { z } from 'zod';
import { invalidField, invalidRequest, type ServerFailure } from './failure.js';

/** Reasons a field can fail, as they appear in `params.reason`. */
export type FieldReason =
  | 'missing'
  | 'wrong_type'
  | 'unknown_field'
  | 'too_short'
  | 'too_long'
  | 'too_small'
  | 'too_big'
  | 'invalid_format'
  | 'invalid_value'
  | 'invalid';

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = root;
  for (const key of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

function boundsOf(issue: z.core.$ZodIssue): Record<string, unknown> {
  if (issue.code === 'too_small') return { min: Number(issue.minimum) };
  if (issue.code === 'too_big') return { max: Number(issue.maximum) };
  return {};
}

function reasonOf(issue: z.core.$ZodIssue, input: unknown): FieldReason {
  if (valueAt(input, issue.path) === undefined) return 'missing';
  switch (issue.code) {
    case 'invalid_type':
      return 'wrong_type';
    case 'too_small':
      return issue.origin === 'string' ? 'too_short' : 'too_small';
    case 'too_big':
      return issue.origin === 'string' ? 'too_long' : 'too_big';
    case 'invalid_format':
      return 'invalid_format';
    case 'invalid_value':
      return 'invalid_value';
    default:
      return 'invalid';
  }
}

/**
 * The failure for the first zod issue of a request body.
 *
 * - unknown keys → `{ field, reason: 'unknown_field' }`
 * - custom issues carry their own params (`reason`, `min`, `max`), see {@link boundedText}
 * - a non-object body → `{ reason: 'not_an_object' }`
 */
export function failureFromIssues(issues: readonly z.core.$ZodIssue[], input: unknown): ServerFailure {
  const issue = issues[0];
  if (issue === undefined) return invalidRequest('invalid', 'The request body is invalid.');
  if (issue.code === 'unrecognized_keys') {
    const prefix = issue.path.map(String);
    const field = [...prefix, issue.keys[0] ?? ''].join('.');
    return invalidField(field, 'unknown_field', {}, `Field '${field}' is not allowed here.`);
  }
  if (issue.path.length === 0) {
    return invalidRequest('not_an_object', 'The request body must be a JSON object.');
  }
  const field = issue.path.map(String).join('.');
  if (issue.code === 'custom') {
    const params = (issue.params ?? {}) as Record<string, unknown>;
    const reason = typeof params['reason'] === 'string' ? params['reason'] : 'invalid';
    return invalidField(
      field,
      reason,
      { ...params, reason },
      `Field '${field}' is invalid: ${issue.message}`,
    );
  }
  const reason = reasonOf(issue, input);
  const message =
    reason === 'missing' ? `Field '${field}' is required.` : `Field '${field}' is invalid (${reason}).`;
  return invalidField(field, reason, boundsOf(issue), message);
}

/** Parses `input` with `schema`, throwing a VALIDATION_ERROR {@link ServerFailure} on the first issue. */
export function parseBody<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw failureFromIssues(result.error.issues, input);
}

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Number of user-perceived characters (extended grapheme clusters). */
export function graphemeCount(text: string): number {
  let n = 0;
  for (const _ of segmenter.segment(text)) n++;
  return n;
}

/** How a {@link boundedText} counts characters. */
export type CharCounting = 'graphemes' | 'code_points';

const MAX_SEGMENTED_UNITS = 4096;

// C0/C1 control characters and DEL: matching them is the point.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * A string of `min`..`max` characters. Any length failure reports both bounds
 * (`params: { reason, min, max }`), so a client can show "2 to 24 characters".
 */
export function boundedText(
  min: number,
  max: number,
  options: { counting?: CharCounting; allowControl?: boolean } = {},
) {
  const count =
    options.counting === 'graphemes' ? graphemeCount : (s: string): number => Array.from(s).length;
  return z.string().superRefine((text, ctx) => {
    // Segmenting is linear but not free: anything this long is too long whatever it holds.
    const n = text.length > MAX_SEGMENTED_UNITS ? max + 1 : count(text);
    if (n < min || n > max) {
      const reason = n < min ? 'too_short' : 'too_long';
      ctx.addIssue({
        code: 'custom',
        message: `Must be ${min} to ${max} characters`,
        params: { reason, min, max },
      });
    } else if (options.allowControl !== true && CONTROL.test(text)) {
      ctx.addIssue({
        code: 'custom',
        message: 'Must not contain control characters',
        params: { reason: 'invalid_characters' },
      });
    }
  });
}
