import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBackoff } from '../../../../packages/sdk/src/transport/ws/index.js';

describe('backoff', () => {
  it('draws each delay in [0, min(cap, base·2^(n-1))] (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 0, max: 60_000 }),
        fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), {
          minLength: 1,
          maxLength: 30,
        }),
        (baseMs, capMs, randoms) => {
          let i = 0;
          const b = createBackoff({ baseMs, capMs, random: () => randoms[i++ % randoms.length]! });
          for (let n = 1; n <= randoms.length; n++) {
            const d = b.next();
            expect(d).toBeGreaterThanOrEqual(0);
            expect(d).toBeLessThanOrEqual(Math.min(capMs, baseMs * 2 ** (n - 1)));
            expect(b.attempt).toBe(n);
          }
        },
      ),
    );
  });

  it('resets only after a stable connection', () => {
    const b = createBackoff({ baseMs: 100, capMs: 10_000, stableAfterMs: 30_000, random: () => 0.999 });
    expect([b.next(), b.next(), b.next()]).toEqual([99, 199, 399]);
    b.connected(1000);
    b.disconnected(1000 + 29_999); // flapping: not stable
    expect(b.next()).toBe(799);
    b.connected(100_000);
    b.disconnected(130_000); // stable for 30 s
    expect(b.attempt).toBe(0);
    expect(b.next()).toBe(99);
    b.reset();
    expect(b.attempt).toBe(0);
  });

  it('refuses negative figures', () => {
    expect(() => createBackoff({ baseMs: -1 })).toThrow(/backoff.baseMs/);
    expect(() => createBackoff({ capMs: Number.NaN })).toThrow(/backoff.capMs/);
  });
});
