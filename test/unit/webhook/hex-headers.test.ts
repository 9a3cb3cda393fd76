import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getHeader } from '../../../src/webhook/headers.js';
import { bytesToHex, hexToBytes, isHex } from '../../../src/webhook/hex.js';

describe('hex', () => {
  it('round-trips bytes and agrees with Buffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const hex = bytesToHex(bytes);
        expect(hex).toBe(Buffer.from(bytes).toString('hex'));
        expect(isHex(hex, bytes.length)).toBe(true);
        expect(isHex(hex.toUpperCase(), bytes.length)).toBe(true);
        expect(hexToBytes(hex.toUpperCase())).toEqual(bytes);
      }),
    );
  });

  it('isHex refuses anything but hex digits of the exact length', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 70 }), (s) => {
        expect(isHex(s, 32)).toBe(/^[0-9a-fA-F]{64}$/.test(s));
      }),
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
