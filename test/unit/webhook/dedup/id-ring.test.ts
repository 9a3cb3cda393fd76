import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EntryState, IdRing } from '../../../../packages/sdk/src/webhook/dedup/id-ring.js';
import { idToWords } from '../../../../packages/sdk/src/webhook/dedup/id-words.js';

function words(id: string): Uint32Array {
  const w = new Uint32Array(4);
  idToWords(id, w);
  return w;
}

describe('IdRing', () => {
  it('finds exactly the ids still present after arbitrary removals (backward-shift deletion)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 120 }),
        fc.array(fc.boolean(), { minLength: 120, maxLength: 120 }),
        (ids, removeMask) => {
          const ring = new IdRing(128);
          const slots = ids.map((id) => ring.push(words(id), EntryState.InFlight, 1));
          ids.forEach((_id, i) => {
            if (removeMask[i]) ring.remove(slots[i]!);
          });
          ids.forEach((id, i) => {
            expect(ring.find(words(id))).toBe(removeMask[i] ? -1 : slots[i]);
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps seq numbers and lookups across growth', () => {
    const ring = new IdRing(16);
    for (let i = 0; i < 16; i++) ring.push(words(`id-${i}`), EntryState.Completed, i);
    ring.remove(ring.find(words('id-3')));
    ring.head = 2;
    ring.grow(64);
    expect(ring.capacity).toBe(64);
    for (let i = 2; i < 16; i++) {
      const slot = ring.find(words(`id-${i}`));
      if (i === 3) expect(slot).toBe(-1);
      else {
        expect(ring.seqOf(slot)).toBe(i);
        expect(ring.expiresAt(slot)).toBe(i);
      }
    }
  });

  it('parses any UUID to exactly its 128 bits, in either case', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.boolean(), (uuid, upper) => {
        const w = words(upper ? uuid.toUpperCase() : uuid);
        expect([...w].map((x) => x.toString(16).padStart(8, '0')).join('')).toBe(uuid.replaceAll('-', ''));
      }),
    );
  });

  it('maps distinct non-UUID ids to distinct words', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ maxLength: 40 }), { minLength: 2, maxLength: 50 }), (ids) => {
        const seen = new Set(ids.map((id) => [...words(id)].join(',')));
        expect(seen.size).toBe(ids.length);
      }),
    );
  });

  it('maps UUIDs to their 16 bytes regardless of case', () => {
    const w = words('0123ABCD-4567-89ab-cdef-0123456789AB');
    expect([...w].map((x) => x.toString(16).padStart(8, '0')).join('')).toBe(
      '0123abcd456789abcdef0123456789ab',
    );
    expect(words('0123abcd-4567-89ab-cdef-0123456789ab')).toEqual(w);
    expect(words('0123abcd-4567-89ab-cdef-0123456789ag')).not.toEqual(w);
  });
});
