import fc from 'fast-check';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { isServerFailure, type ServerFailure } from '../../../../packages/dev/src/server/http/failure.js';
import {
  boundedText,
  graphemeCount,
  parseBody,
} from '../../../../packages/dev/src/server/http/validation.js';

function failureOf(fn: () => unknown): ServerFailure {
  try {
    fn();
  } catch (err) {
    if (isServerFailure(err)) return err;
    throw err;
  }
  throw new Error('did not fail');
}

const Schema = z.strictObject({
  name: boundedText(2, 24, { counting: 'graphemes' }),
  age: z.int().min(0).max(150).optional(),
  nested: z.strictObject({ flag: z.boolean() }).optional(),
});

describe('parseBody → VALIDATION_ERROR params', () => {
  it.each([
    ['missing', {}, { field: 'name', reason: 'missing' }],
    ['wrong type', { name: 5 }, { field: 'name', reason: 'wrong_type' }],
    ['too short', { name: 'A' }, { field: 'name', reason: 'too_short', min: 2, max: 24 }],
    ['too long', { name: 'x'.repeat(25) }, { field: 'name', reason: 'too_long', min: 2, max: 24 }],
    ['far too long', { name: 'x'.repeat(10_000) }, { field: 'name', reason: 'too_long', min: 2, max: 24 }],
    ['control character', { name: 'ok\u0007' }, { field: 'name', reason: 'invalid_characters' }],
    ['number too big', { name: 'ok', age: 200 }, { field: 'age', reason: 'too_big', max: 150 }],
    ['unknown field', { name: 'ok', extra: 1 }, { field: 'extra', reason: 'unknown_field' }],
    [
      'nested unknown field',
      { name: 'ok', nested: { flag: true, more: 1 } },
      { field: 'nested.more', reason: 'unknown_field' },
    ],
    [
      'nested wrong type',
      { name: 'ok', nested: { flag: 'yes' } },
      { field: 'nested.flag', reason: 'wrong_type' },
    ],
    ['array body', [1], { reason: 'not_an_object' }],
    ['null body', null, { reason: 'not_an_object' }],
  ])('%s', (_label, input, params) => {
    const failure = failureOf(() => parseBody(Schema, input));
    expect(failure.code).toBe('VALIDATION_ERROR');
    expect(failure.status).toBe(400);
    expect(failure.params).toEqual(params);
  });

  it('never echoes the offending value in the message', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 30, maxLength: 60 }), (secret) => {
        const failure = failureOf(() => parseBody(Schema, { name: secret, [secret]: 1 }));
        expect(failure.message).not.toContain(secret);
      }),
    );
  });

  it('returns the parsed value when valid', () => {
    expect(parseBody(Schema, { name: 'Ada', age: 36 })).toEqual({ name: 'Ada', age: 36 });
  });
});

describe('graphemeCount', () => {
  it('counts user-perceived characters', () => {
    expect(graphemeCount('abc')).toBe(3);
    expect(graphemeCount('👨‍👩‍👧‍👦')).toBe(1);
    expect(graphemeCount('e\u0301')).toBe(1);
    expect(graphemeCount('🇬🇧🇫🇷')).toBe(2);
  });

  it('is at most the code point count and equals it for ASCII (fast-check)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        expect(graphemeCount(s)).toBeLessThanOrEqual(Array.from(s).length);
      }),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[ -~]*$/), (s) => {
        expect(graphemeCount(s)).toBe(s.length);
      }),
    );
  });
});
