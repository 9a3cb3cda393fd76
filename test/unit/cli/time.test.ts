import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../packages/dev/src/cli/args.js';
import { parseTimeArg } from '../../../packages/dev/src/cli/time.js';

describe('parseTimeArg', () => {
  it('reads Unix seconds and ISO 8601 with a zone', () => {
    expect(parseTimeArg('1767225600', '--now')).toBe(1_767_225_600_000);
    expect(parseTimeArg('2026-01-01T00:00:00Z', '--now')).toBe(1_767_225_600_000);
    expect(parseTimeArg('2026-01-01T01:00:00.250+01:00', '--now')).toBe(1_767_225_600_250);
    expect(parseTimeArg('2026-01-01T00:00Z', '--now')).toBe(1_767_225_600_000);
  });

  it.each([
    ['2026-02-30T00:00:00Z'],
    ['2026-01-01T24:00:00Z'],
    ['2026-01-01 00:00:00Z'],
    ['2026-01-01T00:00:00'],
    ['-5'],
    ['1e9'],
    [''],
  ])('refuses %j naming the option', (text) => {
    expect(() => parseTimeArg(text, '--now')).toThrow(UsageError);
    expect(() => parseTimeArg(text, '--now')).toThrow(/^--now must be/);
  });

  it('round-trips any second and any ISO rendering of an instant', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253_402_300_799 }), (s) => {
        expect(parseTimeArg(String(s), '--t')).toBe(s * 1000);
        expect(parseTimeArg(new Date(s * 1000).toISOString(), '--t')).toBe(s * 1000);
      }),
    );
  });

  it('throws only UsageError for arbitrary text', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          const ms = parseTimeArg(text, '--t');
          expect(Number.isFinite(ms) && ms >= 0).toBe(true);
        } catch (err) {
          expect(err).toBeInstanceOf(UsageError);
        }
      }),
    );
  });
});
