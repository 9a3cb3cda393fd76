import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCryptoError, isValidationError } from '../../../../packages/sdk/src/core/errors/index.js';
import {
  ARGON2_PARAM_BOUNDS,
  Argon2ParamsSchema,
} from '../../../../packages/sdk/src/core/protocol/key-backup.js';
import {
  ARGON2_PARAMS_FLOOR,
  ARGON2_PARAMS_MAX,
  DEFAULT_ARGON2_PARAMS,
  MINIMAL_FORM_ARGON2_PARAMS,
} from '../../../../packages/sdk/src/crypto/backup/index.js';
import {
  argon2ParamsAboveCeiling,
  assertArgon2Floor,
  parseArgon2Option,
} from '../../../../packages/sdk/src/crypto/backup/params.js';

/** True when parseArgon2Option accepts; any rejection must be a ValidationError. */
function accepted(value: unknown): boolean {
  try {
    parseArgon2Option(value, 'params');
    return true;
  } catch (err) {
    expect(isValidationError(err)).toBe(true);
    return false;
  }
}

describe('Argon2 parameters', () => {
  it('defaults meet the floor the brief sets (m ≥ 19 MiB, t ≥ 2, p ≥ 1) and stay under the ceiling', () => {
    for (const p of [DEFAULT_ARGON2_PARAMS, MINIMAL_FORM_ARGON2_PARAMS]) {
      expect(p.m).toBeGreaterThanOrEqual(19 * 1024);
      expect(p.t).toBeGreaterThanOrEqual(2);
      expect(p.p).toBeGreaterThanOrEqual(1);
      expect(Argon2ParamsSchema.safeParse(p).success).toBe(true);
      expect(argon2ParamsAboveCeiling(p)).toEqual([]);
      expect(parseArgon2Option(p, 'params')).toEqual(p);
      expect(() => assertArgon2Floor(p)).not.toThrow();
    }
    expect(ARGON2_PARAMS_FLOOR).toEqual({ m: 19_456, t: 2, p: 1 });
  });

  it('keeps the crypto ceiling within the wire model’s structural bounds', () => {
    for (const k of ['m', 't', 'p'] as const) {
      expect(ARGON2_PARAMS_MAX[k]).toBeLessThanOrEqual(ARGON2_PARAM_BOUNDS[k].max);
      expect(ARGON2_PARAMS_MAX[k]).toBeGreaterThanOrEqual(DEFAULT_ARGON2_PARAMS[k]);
    }
  });

  it('refuses memory or passes below the floor with KEY_BACKUP_PARAMS_TOO_WEAK', () => {
    for (const weak of [
      { m: ARGON2_PARAMS_FLOOR.m - 1, t: 3, p: 1 },
      { m: 65_536, t: 1, p: 1 },
    ]) {
      let caught: unknown;
      try {
        assertArgon2Floor(weak);
      } catch (err) {
        caught = err;
      }
      expect(isCryptoError(caught, 'KEY_BACKUP_PARAMS_TOO_WEAK')).toBe(true);
    }
  });

  it('accepts exactly the integers within the ceiling with m ≥ 8p (core schema + ceiling)', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.anything(), (m, t, p) => {
        const expected =
          Number.isSafeInteger(m) &&
          Number.isSafeInteger(t) &&
          Number.isSafeInteger(p) &&
          (m as number) >= 8 &&
          (m as number) <= ARGON2_PARAMS_MAX.m &&
          (t as number) >= 1 &&
          (t as number) <= ARGON2_PARAMS_MAX.t &&
          (p as number) >= 1 &&
          (p as number) <= ARGON2_PARAMS_MAX.p &&
          (m as number) >= 8 * (p as number);
        expect(accepted({ m, t, p })).toBe(expected);
      }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: -10, max: ARGON2_PARAMS_MAX.m + 10 }),
        fc.integer({ min: -2, max: ARGON2_PARAMS_MAX.t + 2 }),
        fc.integer({ min: -2, max: ARGON2_PARAMS_MAX.p + 2 }),
        (m, t, p) => {
          const inRange = m >= 8 && m <= ARGON2_PARAMS_MAX.m && t >= 1 && t <= ARGON2_PARAMS_MAX.t;
          const expected = inRange && p >= 1 && p <= ARGON2_PARAMS_MAX.p && m >= 8 * p;
          expect(accepted({ m, t, p })).toBe(expected);
        },
      ),
    );
  });

  it('names exactly the components above the ceiling (property)', () => {
    const component = (max: number) => fc.integer({ min: 1, max: 2 * max });
    fc.assert(
      fc.property(
        component(ARGON2_PARAMS_MAX.m),
        component(ARGON2_PARAMS_MAX.t),
        component(ARGON2_PARAMS_MAX.p),
        (m, t, p) => {
          const expected = (['m', 't', 'p'] as const).filter((k) => ({ m, t, p })[k] > ARGON2_PARAMS_MAX[k]);
          expect(argon2ParamsAboveCeiling({ m, t, p })).toEqual(expected);
        },
      ),
    );
  });

  it('rejects a hostile 4 GiB memory request: structurally valid on the wire, above crypto’s ceiling', () => {
    const hostile = { m: 4 * 1024 * 1024, t: 3, p: 1 };
    expect(Argon2ParamsSchema.safeParse(hostile).success).toBe(true);
    try {
      parseArgon2Option(hostile, 'minimalFormParams');
      expect.unreachable();
    } catch (err) {
      expect(isValidationError(err)).toBe(true);
      if (!isValidationError(err)) return;
      expect(err.issues.map((i) => i.path.join('.'))).toEqual(['minimalFormParams.m']);
    }
  });

  it('prefixes structural issues with the option name', () => {
    try {
      parseArgon2Option({ m: 64, t: 0, p: 1, v: 19 }, 'params');
      expect.unreachable();
    } catch (err) {
      if (!isValidationError(err)) throw err;
      const paths = err.issues.map((i) => i.path.join('.'));
      expect(paths).toContain('params.t');
      expect(paths.every((p) => p.startsWith('params'))).toBe(true);
    }
  });
});
