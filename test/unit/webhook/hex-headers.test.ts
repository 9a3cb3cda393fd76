import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getHeader } from '../../../packages/sdk/src/webhook/headers.js';
import { bytesToHex, decodeHex } from '../../../packages/sdk/src/webhook/hex.js';

describe('hex', () => {
  it('round-trips bytes in either case and agrees with Buffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const hex = bytesToHex(bytes);
        expect(hex).toBe(Buffer.from(bytes).toString('hex'));
        for (const text of [hex, hex.toUpperCase()]) {
          const out = new Uint8Array(bytes.length);
          expect(decodeHex(text, out)).toBe(true);
          expect(out).toEqual(bytes);
        }
      }),
    );
  });

  it('decodeHex refuses anything but hex digits of the exact length', () => {
    const hexish = fc.string({
      unit: fc.constantFrom(...'0123456789abcdefABCDEFgG \u0000\u00ff\u0130\uff10'.split('')),
      minLength: 62,
      maxLength: 66,
    });
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 70 }), hexish), (s) => {
        expect(decodeHex(s, new Uint8Array(32))).toBe(/^[0-9a-fA-F]{64}$/.test(s));
      }),
      { numRuns: 500 },
    );
  });
});

describe('getHeader', () => {
  it('finds a header in any case in plain objects and Headers', () => {
    expect(getHeader({ 'X-Service-Timestamp': '1' }, 'x-service-timestamp')).toBe('1');
    expect(getHeader({ 'x-service-timestamp': '2' }, 'x-service-timestamp')).toBe('2');
    expect(getHeader(new Headers({ 'X-Service-Timestamp': '3' }), 'x-service-timestamp')).toBe('3');
    expect(getHeader({ a: '1' }, 'x-service-timestamp')).toBeUndefined();
  });

  it('joins repeated values so they fail their format check instead of one being picked', () => {
    expect(getHeader({ 'x-a': ['1', '2'] }, 'x-a')).toBe('1, 2');
    expect(getHeader({ 'x-a': [] }, 'x-a')).toBeUndefined();
    expect(getHeader({ 'x-a': 5 }, 'x-a')).toBe('5');
  });
});
