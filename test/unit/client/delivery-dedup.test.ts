/**
 * The UserClient's delivery de-duplication: a delivery id or a (conversation,
 * signed message id) seen before is a duplicate; the oldest keys are
 * forgotten past the capacity.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DeliveryDedup, type DeliveryKey } from '../../../packages/sdk/src/client/delivery-dedup.js';

const key = (
  deliveryId: string | undefined,
  messageId: string | undefined,
  conversationId = 'c1',
): DeliveryKey => ({
  deliveryId,
  conversationId,
  messageId,
});

describe('DeliveryDedup', () => {
  it('knows a delivery by its delivery id or by its message id within the conversation', () => {
    const d = new DeliveryDedup();
    d.add(key('17', 'm-1'));
    expect(d.has(key('17', undefined))).toBe(true);
    expect(d.has(key(undefined, 'm-1'))).toBe(true);
    expect(d.has(key('18', 'm-1'))).toBe(true); // same message under another delivery id
    expect(d.has(key('18', 'm-2'))).toBe(false);
    expect(d.has(key(undefined, 'm-1', 'c2'))).toBe(false); // message ids are per conversation
    expect(d.size).toBe(2);
  });

  it('forgets the oldest keys past its capacity', () => {
    const d = new DeliveryDedup(4);
    for (const id of ['1', '2', '3', '4', '5']) d.add(key(id, undefined));
    expect(d.size).toBe(4);
    expect(d.has(key('1', undefined))).toBe(false);
    expect(d.has(key('5', undefined))).toBe(true);
  });

  it('property: filtering a stream with redeliveries keeps each message once, in first-seen order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 200 }), (seqs) => {
        const d = new DeliveryDedup(1_000);
        const kept: number[] = [];
        for (const seq of seqs) {
          const k = key(String(seq), `m-${seq}`);
          if (d.has(k)) continue;
          d.add(k);
          kept.push(seq);
        }
        expect(kept).toEqual([...new Set(seqs)]);
      }),
      { seed: 0x75736572, numRuns: 300 },
    );
  });
});
