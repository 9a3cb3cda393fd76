import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../packages/sdk/src/core/clock.js';
import { createRateLimiter } from '../../../packages/sdk/src/core/rate-limiter.js';

async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe('rate limiter', () => {
  it('admits 5 per second and queues the rest in order instead of failing', async () => {
    const clock = new ManualClock(0);
    const limiter = createRateLimiter({ clock });
    const started: [number, number][] = [];
    const all = Array.from({ length: 12 }, (_, i) =>
      limiter.acquire().then(() => started.push([i, clock.now()])),
    );
    await flush();
    expect(started.map(([i]) => i)).toEqual([0, 1, 2, 3, 4]);
    expect(limiter.pending).toBe(7);
    clock.advance(999);
    await flush();
    expect(started).toHaveLength(5);
    clock.advance(1);
    await flush();
    expect(started.map(([i]) => i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    clock.advance(1000);
    await Promise.all(all);
    expect(started.map(([, t]) => t)).toEqual([0, 0, 0, 0, 0, 1000, 1000, 1000, 1000, 1000, 2000, 2000]);
    expect(limiter.pending).toBe(0);
  });

  it('never lets more than `limit` starts into any window', async () => {
    const clock = new ManualClock(0);
    const limiter = createRateLimiter({ clock, limit: 3, intervalMs: 500 });
    const times: number[] = [];
    const all: Promise<void>[] = [];
    for (let step = 0; step < 40; step++) {
      if (step % 3 === 0)
        for (let k = 0; k < 2; k++) all.push(limiter.acquire().then(() => void times.push(clock.now())));
      await flush();
      for (let ms = 0; ms < 97; ms++) {
        clock.advance(1);
        await flush();
      }
    }
    for (let ms = 0; ms < 10_000 && times.length < all.length; ms++) {
      clock.advance(1);
      await flush();
    }
    await Promise.all(all);
    expect(times).toHaveLength(28);
    for (let i = 3; i < times.length; i++) expect(times[i]! - times[i - 3]!).toBeGreaterThanOrEqual(500);
  });

  it('an aborted waiter leaves the queue at once and takes no slot', async () => {
    const clock = new ManualClock(0);
    const limiter = createRateLimiter({ clock, limit: 1, intervalMs: 1000 });
    await limiter.acquire();
    const controller = new AbortController();
    const order: string[] = [];
    const a = limiter.acquire(controller.signal).then(
      () => order.push('a'),
      (err: unknown) => order.push(`a aborted: ${String(err)}`),
    );
    const b = limiter.acquire().then(() => order.push(`b at ${clock.now()}`));
    expect(limiter.pending).toBe(2);
    controller.abort('gave up');
    await a;
    expect(order).toEqual(['a aborted: gave up']);
    expect(limiter.pending).toBe(1);
    clock.advance(1000);
    await b;
    // b took the slot a would have had: 1 s after the first start, not 2 s.
    expect(order).toEqual(['a aborted: gave up', 'b at 1000']);
    expect(limiter.pending).toBe(0);
  });

  it('rejects at once with an already aborted signal, without taking a free slot', async () => {
    const clock = new ManualClock(0);
    const limiter = createRateLimiter({ clock, limit: 1 });
    const reason = new Error('stop');
    await expect(limiter.acquire(AbortSignal.abort(reason))).rejects.toBe(reason);
    const started: number[] = [];
    await limiter.acquire().then(() => started.push(clock.now()));
    expect(started).toEqual([0]);
  });

  it('a signal aborted after its waiter was admitted changes nothing', async () => {
    const clock = new ManualClock(0);
    const limiter = createRateLimiter({ clock, limit: 1, intervalMs: 100 });
    await limiter.acquire();
    const controller = new AbortController();
    const admitted = limiter.acquire(controller.signal);
    clock.advance(100);
    await admitted;
    controller.abort();
    expect(limiter.pending).toBe(0);
    const next = limiter.acquire();
    clock.advance(100);
    await next;
    expect(limiter.pending).toBe(0);
  });

  it('refuses bad options', () => {
    expect(() => createRateLimiter({ limit: 0 })).toThrow(/limit/);
    expect(() => createRateLimiter({ intervalMs: 0 })).toThrow(/intervalMs/);
  });
});
