import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createOrderedScheduler } from '../../../packages/sdk/src/agent/ordering.js';
import { isConfigurationError } from '../../../packages/sdk/src/core/errors/index.js';

/** A task the test finishes by hand. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

describe('ordered scheduler', () => {
  it('runs tasks of one key one at a time, in push order', async () => {
    const s = createOrderedScheduler({ concurrency: 4 });
    const log: string[] = [];
    const gates = [gate(), gate(), gate()];
    const done = gates.map((g, i) =>
      s.push('c1', async () => {
        log.push(`start ${i}`);
        await g.promise;
        log.push(`end ${i}`);
      }),
    );
    await flush();
    expect(log).toEqual(['start 0']);
    expect(s.running).toBe(1);
    expect(s.queued).toBe(2);
    gates[1]!.open();
    await flush();
    expect(log).toEqual(['start 0']);
    gates[0]!.open();
    await flush();
    expect(log).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2']);
    gates[2]!.open();
    expect(await Promise.all(done)).toEqual(['done', 'done', 'done']);
    expect(s.lanes).toBe(0);
  });

  it('runs different keys concurrently, never more than `concurrency` at once', async () => {
    const s = createOrderedScheduler({ concurrency: 2 });
    const gates = new Map<string, ReturnType<typeof gate>>();
    const started: string[] = [];
    for (const key of ['a', 'b', 'c']) {
      const g = gate();
      gates.set(key, g);
      void s.push(key, async () => {
        started.push(key);
        await g.promise;
      });
    }
    await flush();
    expect(started).toEqual(['a', 'b']);
    gates.get('b')!.open();
    await flush();
    expect(started).toEqual(['a', 'b', 'c']);
    gates.get('a')!.open();
    gates.get('c')!.open();
    await s.idle();
    expect(s.running).toBe(0);
  });

  it('a busy key does not starve others: lanes take turns', async () => {
    const s = createOrderedScheduler({ concurrency: 1 });
    const order: string[] = [];
    const all = [
      ...Array.from({ length: 3 }, (_, i) => s.push('busy', () => void order.push(`busy${i}`))),
      s.push('other', () => void order.push('other0')),
    ];
    await Promise.all(all);
    expect(order).toEqual(['busy0', 'other0', 'busy1', 'busy2']);
  });

  it('a task that throws is reported and its lane goes on', async () => {
    const errors: [unknown, string][] = [];
    const s = createOrderedScheduler({ onTaskError: (e, k) => errors.push([e, k]) });
    const ran: number[] = [];
    const boom = new Error('boom');
    const outcomes = await Promise.all([
      s.push('k', () => {
        throw boom;
      }),
      s.push('k', () => void ran.push(2)),
    ]);
    expect(outcomes).toEqual(['done', 'done']);
    expect(ran).toEqual([2]);
    expect(errors).toEqual([[boom, 'k']]);
  });

  it('clear() drops queued tasks (resolving "dropped") and lets running ones finish', async () => {
    const s = createOrderedScheduler({ concurrency: 1 });
    const g = gate();
    const ran: string[] = [];
    const first = s.push('a', async () => {
      await g.promise;
      ran.push('a0');
    });
    const second = s.push('a', () => void ran.push('a1'));
    const third = s.push('b', () => void ran.push('b0'));
    await flush();
    expect(s.clear()).toBe(2);
    expect(await second).toBe('dropped');
    expect(await third).toBe('dropped');
    g.open();
    expect(await first).toBe('done');
    await s.idle();
    expect(ran).toEqual(['a0']);
    expect(s.queued).toBe(0);
  });

  it('refuses a bad concurrency', () => {
    for (const concurrency of [0, -1, 1.5, Number.NaN]) {
      let error: unknown;
      try {
        createOrderedScheduler({ concurrency });
      } catch (err) {
        error = err;
      }
      expect(isConfigurationError(error)).toBe(true);
    }
  });

  it('property: per-key order holds and the bound is never exceeded, whatever the timing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd'), fc.nat({ max: 3 })), { maxLength: 40 }),
        async (concurrency, tasks) => {
          const s = createOrderedScheduler({ concurrency });
          const seen = new Map<string, number[]>();
          let running = 0;
          let peak = 0;
          const busy = new Set<string>();
          let overlap = false;
          await Promise.all(
            tasks.map(([key, ticks], i) =>
              s.push(key, async () => {
                if (busy.has(key)) overlap = true;
                busy.add(key);
                running += 1;
                peak = Math.max(peak, running);
                for (let t = 0; t < ticks; t++) await Promise.resolve();
                seen.set(key, [...(seen.get(key) ?? []), i]);
                running -= 1;
                busy.delete(key);
              }),
            ),
          );
          expect(overlap).toBe(false);
          expect(peak).toBeLessThanOrEqual(concurrency);
          for (const [key, order] of seen) {
            const expected = tasks.flatMap(([k], i) => (k === key ? [i] : []));
            expect(order).toEqual(expected);
          }
        },
      ),
    );
  });
});
