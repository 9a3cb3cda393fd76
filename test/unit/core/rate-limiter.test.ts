import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { createRateLimiter } from '../../../src/core/rate-limiter.js';

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

  it('refuses bad options', () => {
    expect(() => createRateLimiter({ limit: 0 })).toThrow(/limit/);
    expect(() => createRateLimiter({ intervalMs: 0 })).toThrow(/intervalMs/);
  });
});
