import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isIsoUtcMillis } from '../../../packages/sdk/src/core/timestamps.js';

/** The definition the fast check must agree with: the pattern plus a Date round trip. */
function oracle(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(text)) return false;
  const ms = Date.parse(text);
  return !Number.isNaN(ms) && new Date(ms).toISOString() === text;
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** Strings of the right shape with every field drawn from a range a little wider than valid. */
const shaped = fc
  .tuple(
    fc.integer({ min: 0, max: 9999 }),
    fc.integer({ min: 0, max: 13 }),
    fc.integer({ min: 0, max: 32 }),
    fc.integer({ min: 0, max: 25 }),
    fc.integer({ min: 0, max: 60 }),
    fc.integer({ min: 0, max: 60 }),
    fc.integer({ min: 0, max: 999 }),
  )
  .map(
    ([y, mo, d, h, mi, s, ms]) =>
      `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}.${pad(ms, 3)}Z`,
  );

describe('isIsoUtcMillis', () => {
  it('agrees with the Date round trip on well-shaped strings, valid or not', () => {
    fc.assert(
      fc.property(shaped, (text) => {
        expect(isIsoUtcMillis(text)).toBe(oracle(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('agrees with the Date round trip on arbitrary input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 30 }), fc.anything()), (value) => {
        expect(isIsoUtcMillis(value)).toBe(typeof value === 'string' && oracle(value));
      }),
    );
  });

  it.each([
    ['2024-02-29T12:00:00.000Z', true],
    ['2023-02-29T12:00:00.000Z', false],
    ['2000-02-29T00:00:00.000Z', true],
    ['1900-02-29T00:00:00.000Z', false],
    ['2026-04-31T00:00:00.000Z', false],
    ['2026-12-31T23:59:59.999Z', true],
    ['2026-12-31T24:00:00.000Z', false],
    ['2026-12-31T23:59:60.000Z', false],
    ['2026-12-31T23:59:59.99Z', false],
    ['2026-12-31 23:59:59.999Z', false],
  ])('%s → %s', (text, expected) => {
    expect(isIsoUtcMillis(text)).toBe(expected);
    expect(oracle(text)).toBe(expected);
  });
});
