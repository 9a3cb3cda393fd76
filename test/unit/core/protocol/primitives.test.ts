import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isIsoUtcMillis,
  isTimestampWithZone,
  isUuid,
  isUuidV7,
} from '../../../../packages/sdk/src/core/protocol/index.js';
import { isoMillis } from './fixtures.js';

describe('isIsoUtcMillis', () => {
  it('accepts every Date#toISOString of years 1970-9999 (property)', () => {
    fc.assert(
      fc.property(isoMillis, (s) => {
        expect(isIsoUtcMillis(s)).toBe(true);
      }),
    );
  });

  it.each([
    '2026-03-01T12:34:56Z',
    '2026-03-01T12:34:56.78Z',
    '2026-03-01T12:34:56.7890Z',
    '2026-03-01T12:34:56.789+00:00',
    '2026-03-01 12:34:56.789Z',
    '2026-02-30T00:00:00.000Z',
    '2026-13-01T00:00:00.000Z',
    '2026-03-01T24:00:00.000Z',
    '2026-03-01T12:60:00.000Z',
    '2026-03-01t12:34:56.789z',
    '+012026-03-01T12:34:56.789Z',
    '',
  ])('rejects %s', (s) => {
    expect(isIsoUtcMillis(s)).toBe(false);
  });

  it('accepts exactly what survives a Date round trip (property)', () => {
    const digits = (n: number) =>
      fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: n, maxLength: n });
    const candidate = fc
      .tuple(digits(4), digits(2), digits(2), digits(2), digits(2), digits(2), digits(3))
      .map(([y, mo, d, h, mi, s, ms]) => `${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`);
    fc.assert(
      fc.property(candidate, (s) => {
        const t = Date.parse(s);
        expect(isIsoUtcMillis(s)).toBe(!Number.isNaN(t) && new Date(t).toISOString() === s);
      }),
      { numRuns: 500 },
    );
  });
});

describe('isTimestampWithZone', () => {
  it.each([
    '2026-03-01T12:34:56Z',
    '2026-03-01T12:34:56.123456Z',
    '2026-03-01T12:34:56+02:00',
    '2026-03-01T12:34:56.1-0530',
    '2026-03-01 12:34:56+00',
  ])('accepts %s', (s) => {
    expect(isTimestampWithZone(s)).toBe(s !== '2026-03-01 12:34:56+00');
  });

  it.each(['2026-03-01T12:34:56', '2026-02-29T00:00:00Z', '2026-03-01', 'yesterday', '2026-03-01T25:00:00Z'])(
    'rejects %s',
    (s) => {
      expect(isTimestampWithZone(s)).toBe(false);
    },
  );

  it('accepts leap days of leap years only', () => {
    expect(isTimestampWithZone('2024-02-29T00:00:00Z')).toBe(true);
    expect(isTimestampWithZone('2100-02-29T00:00:00Z')).toBe(false);
  });

  it('accepts every toISOString (property)', () => {
    fc.assert(
      fc.property(isoMillis, (s) => {
        expect(isTimestampWithZone(s)).toBe(true);
      }),
    );
  });
});

describe('UUIDs', () => {
  const hex = (n: number) =>
    fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: n, maxLength: n });

  it('isUuidV7 requires version nibble 7 and variant 10xx (property)', () => {
    fc.assert(
      fc.property(hex(8), hex(4), hex(4), hex(4), hex(12), (a, b, c, d, e) => {
        const id = `${a}-${b}-${c}-${d}-${e}`;
        expect(isUuid(id)).toBe(true);
        const v7 = c[0] === '7' && '89abAB'.includes(d[0]!);
        expect(isUuidV7(id)).toBe(v7);
      }),
      { numRuns: 500 },
    );
  });

  it('rejects malformed ids', () => {
    for (const bad of [
      '',
      '0195a1b2c3d47e5f8a6b7c8d9e0f1a2b',
      '0195a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2',
      '{0195a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b}',
    ]) {
      expect(isUuid(bad)).toBe(false);
      expect(isUuidV7(bad)).toBe(false);
    }
    expect(isUuidV7('0195a1b2-c3d4-4e5f-8a6b-7c8d9e0f1a2b')).toBe(false);
    expect(isUuidV7('0195a1b2-c3d4-7e5f-ca6b-7c8d9e0f1a2b')).toBe(false);
    expect(isUuidV7('0195a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b')).toBe(true);
  });
});
