/**
 * The grant scope parser and the grant wire schemas, with malformed input:
 * only the known scopes pass, exactly; everything else is a ValidationError
 * that never echoes the input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidationError } from '../../../../packages/sdk/src/index.js';
import {
  GRANT_SCOPES,
  GrantRequestBodySchema,
  isGrantScope,
  parseGrantData,
  parseGrantScope,
} from '../../../../packages/sdk/src/protocol.js';

function scopeOutcome(input: unknown): string {
  try {
    return parseGrantScope(input);
  } catch (err) {
    if (isValidationError(err)) return 'invalid';
    throw err;
  }
}

describe('parseGrantScope', () => {
  it('accepts exactly the known scopes', () => {
    for (const s of GRANT_SCOPES) expect(parseGrantScope(s)).toBe(s);
  });

  it.each([
    ' profile.read',
    'profile.read ',
    'PROFILE.READ',
    'profile',
    'profile.',
    '.read',
    'files.read',
    '',
    'profile.read\0',
  ])('refuses %j', (s) => {
    expect(scopeOutcome(s)).toBe('invalid');
  });

  it('refuses non-strings and never echoes the input in the error', () => {
    for (const v of [null, undefined, 1, {}, ['profile.read'], true]) expect(scopeOutcome(v)).toBe('invalid');
    try {
      parseGrantScope('hsk_secretlooking_value_here');
    } catch (err) {
      expect(String((err as Error).message)).not.toContain('hsk_secret');
    }
  });

  it('property: any string is a known scope or a ValidationError, and the guard agrees', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.constantFrom(...GRANT_SCOPES), fc.jsonValue()), (v) => {
        const r = scopeOutcome(v);
        expect(r !== 'invalid').toBe(isGrantScope(v));
      }),
    );
  });

  it('property: a known scope with any change of characters is refused', () => {
    fc.assert(
      fc.property(fc.constantFrom(...GRANT_SCOPES), fc.string({ minLength: 1, maxLength: 3 }), (s, extra) => {
        expect(scopeOutcome(s + extra)).toBe('invalid');
        expect(scopeOutcome(extra + s)).toBe('invalid');
      }),
    );
  });
});

describe('grant wire schemas', () => {
  it('property: a request body with any fields either parses or fails, never throws', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            conversation_id: fc.oneof(fc.string(), fc.integer()),
            scope: fc.oneof(fc.constantFrom(...GRANT_SCOPES), fc.string()),
            window_seconds: fc.oneof(fc.integer(), fc.double(), fc.string()),
            reason: fc.oneof(fc.string(), fc.constant(null)),
          },
          { requiredKeys: [] },
        ),
        (body) => {
          const r = GrantRequestBodySchema.safeParse(body);
          if (r.success) {
            expect(r.data.window_seconds).toBeGreaterThanOrEqual(60);
            expect(r.data.window_seconds).toBeLessThanOrEqual(30 * 24 * 3600);
          }
        },
      ),
    );
  });

  it('checks the data of each scope', () => {
    expect(
      parseGrantData('profile.read', { user_id: 'u', display_name: 'Ada', device_locale: 'en' }),
    ).toMatchObject({
      display_name: 'Ada',
    });
    expect(() => parseGrantData('profile.read', { user_id: 'u' })).toThrow();
    expect(() => parseGrantData('conversations.list', [{ conversation_id: 1 }])).toThrow();
  });
});
