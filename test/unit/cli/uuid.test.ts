import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isUuidV7 } from '../../../packages/sdk/src/protocol.js';
import { uuidV7 } from '../../../packages/dev/src/cli/uuid.js';

describe('uuidV7', () => {
  it('makes UUID v7s that carry the time in their first 48 bits', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 48 - 1 }),
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        (ms, rnd) => {
          const id = uuidV7(ms, (b) => (b.set(rnd), b));
          expect(isUuidV7(id)).toBe(true);
          expect(parseInt(id.replaceAll('-', '').slice(0, 12), 16)).toBe(ms);
        },
      ),
    );
  });

  it('differs between calls at the same millisecond', () => {
    expect(uuidV7(1_767_225_600_000)).not.toBe(uuidV7(1_767_225_600_000));
  });
});
