import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSafeObjectKey } from '../../../../packages/sdk/src/core/protocol/object-ref.js';
import { isUuidV7 } from '../../../../packages/sdk/src/core/protocol/primitives.js';
import { newObjectKey, uuidV7 } from '../../../../packages/dev/src/server/delivery/ids.js';

describe('uuidV7', () => {
  it('is a UUID v7 carrying the given millisecond time (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 48 - 1 }), (ms) => {
        const id = uuidV7(ms);
        expect(isUuidV7(id)).toBe(true);
        expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(ms);
      }),
    );
  });

  it('sorts by time and differs within one millisecond', () => {
    const t = Date.parse('2026-03-01T12:00:00.000Z');
    expect(uuidV7(t) < uuidV7(t + 1)).toBe(true);
    const same = new Set(Array.from({ length: 1000 }, () => uuidV7(t)));
    expect(same.size).toBe(1000);
  });
});

describe('newObjectKey', () => {
  it('is safe for a URL path, 256 random bits, never repeated', () => {
    const keys = Array.from({ length: 2000 }, newObjectKey);
    expect(new Set(keys).size).toBe(keys.length);
    for (const k of keys) {
      expect(k).toMatch(/^obj_[A-Za-z0-9_-]{43}$/);
      expect(isSafeObjectKey(k)).toBe(true);
      expect(encodeURIComponent(k)).toBe(k);
    }
  });
});
