import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  concatBytes,
  fromBase64,
  fromUtf8,
  isBase64,
  toBase64,
  utf8,
} from '../../../packages/sdk/src/core/encoding.js';

const nodeB64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
// The canonical-encoding oracle: a string is canonical base64 iff Buffer re-encodes it unchanged.
const isCanonical = (s: string): boolean => Buffer.from(s, 'base64').toString('base64') === s;

const base64Alphabet = fc.constantFrom(
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ \n'.split(''),
);
const base64ish = fc.string({ unit: base64Alphabet, maxLength: 24 });

describe('base64', () => {
  it('toBase64 equals Buffer and round-trips through fromBase64 (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const text = toBase64(bytes);
        expect(text).toBe(nodeB64(bytes));
        expect(isBase64(text)).toBe(true);
        expect(fromBase64(text)).toEqual(bytes);
      }),
    );
  });

  it('encodes subarray views by their own bytes only', () => {
    const backing = new Uint8Array([1, 2, 3, 4, 5, 6]);
    expect(toBase64(backing.subarray(2, 5))).toBe(nodeB64(new Uint8Array([3, 4, 5])));
  });

  it('accepts exactly the canonical padded encodings (property)', () => {
    fc.assert(
      fc.property(base64ish, (s) => {
        const decoded = fromBase64(s);
        expect(isBase64(s)).toBe(isCanonical(s));
        if (isCanonical(s)) expect(decoded).toEqual(new Uint8Array(Buffer.from(s, 'base64')));
        else expect(decoded).toBeUndefined();
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['missing padding', 'QQ'],
    ['url-safe alphabet', 'ab-_'],
    ['whitespace', 'QUJD\nREVG'],
    ['non-zero unused bits', 'QR=='],
    ['padding in the middle', 'QQ==QUJD'],
    ['too much padding', 'Q==='],
    ['non-ASCII', 'QUJDé==='],
  ])('rejects %s', (_name, s) => {
    expect(isBase64(s)).toBe(false);
    expect(fromBase64(s)).toBeUndefined();
  });

  it('decodes the empty string to no bytes', () => {
    expect(fromBase64('')).toEqual(new Uint8Array(0));
    expect(toBase64(new Uint8Array(0))).toBe('');
  });
});

describe('base64 without Buffer (portable path)', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it('gives the same text as Buffer (property)', async () => {
    vi.resetModules();
    vi.stubGlobal('Buffer', undefined);
    const portable = await import('../../../packages/sdk/src/core/encoding.js');
    vi.unstubAllGlobals();
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const text = portable.toBase64(bytes);
        expect(text).toBe(nodeB64(bytes));
        expect(portable.fromBase64(text)).toEqual(bytes);
      }),
    );
  });
});

// Any Unicode scalar value (fast-check's 'binary' unit is slow to set up).
const codePoint = fc
  .integer({ min: 0, max: 0x10ffff })
  .filter((c) => c < 0xd800 || c > 0xdfff)
  .map((c) => String.fromCodePoint(c));

describe('utf8', () => {
  it('round-trips any well-formed string and matches Buffer (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: codePoint, maxLength: 100 }), (s) => {
        const bytes = utf8(s);
        expect(Buffer.from(bytes).equals(Buffer.from(s, 'utf8'))).toBe(true);
        expect(fromUtf8(bytes)).toBe(s);
      }),
    );
  });

  it('rejects invalid UTF-8 with undefined', () => {
    for (const bad of [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xe2, 0x82]]) {
      expect(fromUtf8(new Uint8Array(bad))).toBeUndefined();
    }
  });
});

describe('concatBytes', () => {
  it('concatenates like Buffer.concat (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 20 }), { maxLength: 6 }), (parts) => {
        expect(concatBytes(...parts)).toEqual(new Uint8Array(Buffer.concat(parts)));
      }),
    );
  });
});
