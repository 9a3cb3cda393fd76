import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Fifo } from '../../../../packages/dev/src/server/delivery/queue.js';

describe('Fifo', () => {
  it('behaves like an array used as a queue (property)', () => {
    const op = fc.oneof(
      fc.record({ push: fc.integer() }),
      fc.constant('shift' as const),
      fc.constant('drain' as const),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 3000 }), (ops) => {
        const fifo = new Fifo<number>();
        let model: number[] = [];
        for (const o of ops) {
          if (o === 'shift') expect(fifo.shift()).toBe(model.shift());
          else if (o === 'drain') {
            expect(fifo.drain()).toEqual(model);
            model = [];
          } else {
            fifo.push(o.push);
            model.push(o.push);
          }
          expect(fifo.size).toBe(model.length);
          expect(fifo.peek()).toBe(model[0]);
        }
      }),
      { numRuns: 50 },
    );
  });

  it('keeps order across compaction of a long queue', () => {
    const fifo = new Fifo<number>();
    for (let i = 0; i < 5000; i++) fifo.push(i);
    for (let i = 0; i < 4000; i++) expect(fifo.shift()).toBe(i);
    expect(fifo.size).toBe(1000);
    expect(fifo.drain()[0]).toBe(4000);
  });
});
