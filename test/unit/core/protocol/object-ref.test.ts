import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSafeObjectKey, ObjectRefSchema } from '../../../../packages/sdk/src/core/protocol/index.js';

const ref = { type: 'r2', object_key: 'a/b/c', size: 5_000_000, content_type: 'application/octet-stream' };

describe('ObjectRefSchema', () => {
  it('accepts a well-formed ref and keeps unknown fields', () => {
    expect(ObjectRefSchema.parse({ ...ref, etag: 'x' })).toEqual({ ...ref, etag: 'x' });
    expect(
      ObjectRefSchema.safeParse({ ...ref, content_type: 'application/vnd.ams.envelope+json; v=1' }).success,
    ).toBe(true);
    expect(ObjectRefSchema.safeParse({ ...ref, size: 0 }).success).toBe(true);
  });

  it.each([
    ['type s3', { type: 's3' }],
    ['negative size', { size: -1 }],
    ['fractional size', { size: 1.5 }],
    ['string size', { size: '10' }],
    ['content type without subtype', { content_type: 'binary' }],
    ['empty key', { object_key: '' }],
  ])('rejects %s', (_name, patch) => {
    expect(ObjectRefSchema.safeParse({ ...ref, ...patch }).success).toBe(false);
  });
});

describe('isSafeObjectKey', () => {
  it.each(['abc', 'a/b/c', 'deliveries/2026-03-01/0195a1b2.bin', 'a.b/c..d', 'x'.repeat(1024)])(
    'accepts %s',
    (k) => {
      expect(isSafeObjectKey(k)).toBe(true);
    },
  );

  it.each([
    '',
    '/abs',
    '../up',
    'a/../b',
    'a/./b',
    '.%2e',
    '%2E%2e/agents',
    'a/%2e/b',
    'a//b',
    'a/',
    'a?b=1',
    'a#frag',
    'a\\b',
    'a b',
    'a\nb',
    'a\u0000b',
    'x'.repeat(1025),
  ])('rejects %j', (k) => {
    expect(isSafeObjectKey(k)).toBe(false);
  });

  it('never accepts a key whose URL resolution escapes /r2/ (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', '.', '/', '%', '?', '#', '\\', ' ', '2', 'e') }),
        (k) => {
          if (!isSafeObjectKey(k)) return;
          const url = new URL(`/r2/${k}`, 'https://service.example');
          expect(url.pathname.startsWith('/r2/')).toBe(true);
          expect(url.search).toBe('');
          expect(url.hash).toBe('');
        },
      ),
      // Fixed seed, and the counterexample it once found (`.%2e`) is a named case above.
      { numRuns: 5000, seed: 85332927 },
    );
  });
});
