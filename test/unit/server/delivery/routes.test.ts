import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isServerFailure, type ServerFailure } from '../../../../packages/dev/src/server/http/failure.js';
import { DELIVERY_LOGS_LIMIT, parseLogsLimit } from '../../../../packages/dev/src/server/delivery/routes.js';

function failureOf(query: string): ServerFailure {
  try {
    parseLogsLimit(new URLSearchParams(query));
  } catch (err) {
    if (isServerFailure(err)) return err;
    throw err;
  }
  throw new Error(`accepted ${query}`);
}

describe('parseLogsLimit', () => {
  it('defaults to 50 and accepts 1 … 500', () => {
    expect(parseLogsLimit(new URLSearchParams(''))).toBe(DELIVERY_LOGS_LIMIT.default);
    expect(parseLogsLimit(new URLSearchParams('limit=1'))).toBe(1);
    expect(parseLogsLimit(new URLSearchParams('limit=500'))).toBe(500);
    expect(parseLogsLimit(new URLSearchParams('limit=007'))).toBe(7);
  });

  it.each([
    ['limit=0', 'too_small'],
    ['limit=501', 'too_big'],
    ['limit=999999999', 'too_big'],
    ['limit=-1', 'invalid_format'],
    ['limit=1.5', 'invalid_format'],
    ['limit=', 'invalid_format'],
    ['limit=ten', 'invalid_format'],
    ['limit=%201', 'invalid_format'],
    ['limit=1e2', 'invalid_format'],
    ['limit=1&limit=2', 'invalid'],
  ])('%s → VALIDATION_ERROR %s with both bounds', (query, reason) => {
    const failure = failureOf(query);
    expect(failure.code).toBe('VALIDATION_ERROR');
    expect(failure.status).toBe(400);
    expect(failure.params).toEqual({ field: 'limit', reason, min: 1, max: 500 });
  });

  it('accepts exactly the integers 1 … 500 (property)', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const query = new URLSearchParams();
        query.set('limit', text);
        let out: number | undefined;
        try {
          out = parseLogsLimit(query);
        } catch (err) {
          expect(isServerFailure(err)).toBe(true);
          expect(String((err as Error).message)).not.toContain(text.length > 3 ? text : '\u0000');
        }
        const valid = /^\d+$/.test(text) && Number(text) >= 1 && Number(text) <= 500;
        expect(out).toBe(valid ? Number(text) : undefined);
      }),
    );
  });
});
