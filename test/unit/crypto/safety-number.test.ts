/**
 * Safety numbers: fixed vectors, order independence, and any key byte changes the number.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fingerprint, safetyNumber, type SafetyNumberParty } from '../../../packages/sdk/src/crypto/index.js';

const party = (id: string, s: number, e: number): SafetyNumberParty => ({
  id,
  signing: new Uint8Array(32).fill(s),
  encryption: new Uint8Array(32).fill(e),
});

describe('safetyNumber', () => {
  // Vectors cross-checked with an independent Python (hashlib) implementation of the construction.
  it('matches the fixed vectors', () => {
    const a = party('user-1', 1, 2);
    const b = party('agent-1', 3, 4);
    expect(fingerprint(a)).toBe('445400065077268469487778292828');
    expect(safetyNumber(a, b)).toBe(
      '11527 90024 96429 63051 44355 68688 44540 00650 77268 46948 77782 92828',
    );
    expect(fingerprint({ id: 'user-2', signing: undefined, encryption: new Uint8Array(32) })).toBe(
      '618530305869576132048828690601',
    );
  });

  it('is 60 digits in 12 groups of 5, whichever party comes first', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        (ka, kb) => {
          const a = { id: 'a', signing: ka, encryption: kb };
          const b = { id: 'b', signing: kb, encryption: ka };
          expect(safetyNumber(a, b)).toBe(safetyNumber(b, a));
          expect(safetyNumber(a, b)).toMatch(/^(\d{5} ){11}\d{5}$/);
        },
      ),
      { seed: 1717, numRuns: 10 },
    );
  });

  it('changes when any key byte or the id changes', () => {
    const base = party('user-1', 1, 2);
    const other = party('agent-1', 3, 4);
    const number = safetyNumber(base, other);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 63 }), fc.integer({ min: 1, max: 255 }), (i, x) => {
        const signing = base.signing!.slice();
        const encryption = base.encryption.slice();
        if (i < 32) signing[i]! ^= x;
        else encryption[i - 32]! ^= x;
        expect(safetyNumber({ ...base, signing, encryption }, other)).not.toBe(number);
      }),
      { seed: 4242, numRuns: 10 },
    );
    expect(safetyNumber({ ...base, id: 'user-2' }, other)).not.toBe(number);
  });
});
