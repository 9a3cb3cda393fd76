import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  isServiceError,
  toServiceError,
} from '../../../../packages/sdk/src/core/errors/index.js';
import {
  ErrorResponseSchema,
  errorBody,
  i18nKeyFor,
} from '../../../../packages/sdk/src/core/protocol/index.js';

describe('i18nKeyFor', () => {
  it('is errors. + the lower-cased code', () => {
    expect(i18nKeyFor('RATE_LIMITED')).toBe('errors.rate_limited');
    expect(i18nKeyFor('DEVICE_NAME_TAKEN')).toBe('errors.device_name_taken');
  });

  it('gives every catalogue code a distinct key', () => {
    const keys = new Set(ERROR_CODES.map(i18nKeyFor));
    expect(keys.size).toBe(ERROR_CODES.length);
  });
});

describe('errorBody', () => {
  it('builds the wire error object with all four fields', () => {
    expect(
      errorBody('VALIDATION_ERROR', 'display_name must be 2 to 24 characters', { min: 2, max: 24 }),
    ).toEqual({
      error: {
        code: 'VALIDATION_ERROR',
        message: 'display_name must be 2 to 24 characters',
        i18n_key: 'errors.validation_error',
        params: { min: 2, max: 24 },
      },
    });
    expect(errorBody('NOT_FOUND', 'Not found.').error.params).toEqual({});
  });

  it('copies params rather than sharing them', () => {
    const params = { a: 1 };
    const body = errorBody('FORBIDDEN', 'x', params);
    params.a = 2;
    expect(body.error.params).toEqual({ a: 1 });
  });

  it('satisfies ErrorResponseSchema and round-trips through toServiceError (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ERROR_CODES),
        fc.string(),
        fc.dictionary(fc.string(), fc.oneof(fc.integer(), fc.boolean())),
        (code, message, params) => {
          const body = errorBody(code, message, params);
          expect(ErrorResponseSchema.safeParse(body).success).toBe(true);
          const err = toServiceError({ status: 400, body: JSON.stringify(body) });
          expect(isServiceError(err, code)).toBe(true);
          expect(err.i18nKey).toBe(i18nKeyFor(code));
        },
      ),
    );
  });
});

describe('ErrorResponseSchema', () => {
  it('rejects an empty code and a missing message', () => {
    expect(
      ErrorResponseSchema.safeParse({ error: { code: '', message: '', i18n_key: '', params: {} } }).success,
    ).toBe(false);
    expect(ErrorResponseSchema.safeParse({ error: { code: 'X', i18n_key: '', params: {} } }).success).toBe(
      false,
    );
  });
});
