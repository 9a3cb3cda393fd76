import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCryptoError } from '../../../../src/core/errors/index.js';
import {
  ARGON2_PARAMS_FLOOR,
  ARGON2_PARAMS_MAX,
  Argon2ParamsSchema,
  DEFAULT_ARGON2_PARAMS,
  MINIMAL_FORM_ARGON2_PARAMS,
} from '../../../../src/crypto/backup/index.js';
import { assertArgon2Floor } from '../../../../src/crypto/backup/params.js';

describe('Argon2 parameters', () => {
  it('defaults meet the floor the brief sets (m ≥ 19 MiB, t ≥ 2, p ≥ 1) and stay under the ceiling', () => {
    for (const p of [DEFAULT_ARGON2_PARAMS, MINIMAL_FORM_ARGON2_PARAMS]) {
      expect(p.m).toBeGreaterThanOrEqual(19 * 1024);
      expect(p.t).toBeGreaterThanOrEqual(2);
      expect(p.p).toBeGreaterThanOrEqual(1);
      expect(Argon2ParamsSchema.safeParse(p).success).toBe(true);
      expect(() => assertArgon2Floor(p)).not.toThrow();
    }
    expect(ARGON2_PARAMS_FLOOR).toEqual({ m: 19_456, t: 2, p: 1 });
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

  it('schema accepts exactly the integers within bounds with m ≥ 8p', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.anything(), (m, t, p) => {
        const ok = Argon2ParamsSchema.safeParse({ m, t, p }).success;
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
        expect(ok).toBe(expected);
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
          expect(Argon2ParamsSchema.safeParse({ m, t, p }).success).toBe(expected);
        },
      ),
    );
  });

  it('rejects a hostile 4 GiB memory request at the schema', () => {
    expect(Argon2ParamsSchema.safeParse({ m: 4 * 1024 * 1024, t: 3, p: 1 }).success).toBe(false);
  });
});
