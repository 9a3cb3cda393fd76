import { describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from '../../../packages/sdk/src/core/clock.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');

describe('ManualClock', () => {
  it('starts at the given time and only moves when told to', () => {
    const clock = new ManualClock(T0);
    expect(clock.now()).toBe(T0);
    clock.advance(1500);
    expect(clock.now()).toBe(T0 + 1500);
  });

  it('fires timers in time order, ties in the order they were set', () => {
    const clock = new ManualClock(T0);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('c@300'), 300);
    clock.setTimeout(() => fired.push('a@100'), 100);
    clock.setTimeout(() => fired.push('b1@200'), 200);
    clock.setTimeout(() => fired.push('b2@200'), 200);
    clock.setTimeout(() => fired.push('late@1000'), 1000);
    clock.advance(300);
    expect(fired).toEqual(['a@100', 'b1@200', 'b2@200', 'c@300']);
    expect(clock.pendingTimers).toBe(1);
  });

  it('shows each timer its own due time as now()', () => {
    const clock = new ManualClock(T0);
    const seen: number[] = [];
    clock.setTimeout(() => seen.push(clock.now()), 10);
    clock.setTimeout(() => seen.push(clock.now()), 70);
    clock.advance(100);
    expect(seen).toEqual([T0 + 10, T0 + 70]);
    expect(clock.now()).toBe(T0 + 100);
  });

  it('fires nested timers that fall inside the window, and keeps later ones pending', () => {
    const clock = new ManualClock(T0);
    const fired: number[] = [];
    clock.setTimeout(() => {
      fired.push(clock.now() - T0);
      clock.setTimeout(() => {
        fired.push(clock.now() - T0);
        clock.setTimeout(() => fired.push(clock.now() - T0), 500);
      }, 20);
    }, 10);
    clock.advance(100);
    expect(fired).toEqual([10, 30]);
    expect(clock.pendingTimers).toBe(1);
    clock.advance(500);
    expect(fired).toEqual([10, 30, 530]);
  });

  it('runs a zero-delay timer set inside a callback in the same advance', () => {
    const clock = new ManualClock(T0);
    const fired: string[] = [];
    clock.setTimeout(() => {
      fired.push('outer');
      clock.setTimeout(() => fired.push('inner'), 0);
    }, 5);
    clock.advance(5);
    expect(fired).toEqual(['outer', 'inner']);
  });

  it('clearTimeout cancels, also from inside another timer; unknown handles are ignored', () => {
    const clock = new ManualClock(T0);
    const fired: string[] = [];
    const later = clock.setTimeout(() => fired.push('later'), 50);
    clock.setTimeout(() => clock.clearTimeout(later), 10);
    const never = clock.setTimeout(() => fired.push('never'), 5);
    clock.clearTimeout(never);
    clock.clearTimeout({ id: 9999 });
    clock.advance(100);
    expect(fired).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('treats negative delays as zero', () => {
    const clock = new ManualClock(T0);
    let fired = false;
    clock.setTimeout(() => {
      fired = true;
    }, -100);
    clock.advance(0);
    expect(fired).toBe(true);
  });

  it('setTime jumps forward firing due timers, and never goes backwards', () => {
    const clock = new ManualClock(T0);
    const fired: number[] = [];
    clock.setTimeout(() => fired.push(clock.now()), 60_000);
    clock.setTime(T0 + 24 * 60 * 60 * 1000);
    expect(fired).toEqual([T0 + 60_000]);
    expect(clock.now()).toBe(T0 + 24 * 60 * 60 * 1000);
    clock.setTime(T0);
    expect(clock.now()).toBe(T0 + 24 * 60 * 60 * 1000);
  });

  it('rejects a negative or NaN advance', () => {
    const clock = new ManualClock(T0);
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(() => clock.advance(Number.NaN)).toThrow(RangeError);
  });

  it('gives each timer a unique handle', () => {
    const clock = new ManualClock(T0);
    const ids = new Set(Array.from({ length: 50 }, () => clock.setTimeout(() => undefined, 1).id));
    expect(ids.size).toBe(50);
  });
});

describe('systemClock', () => {
  it('reads wall-clock time', () => {
    const before = Date.now();
    const now = systemClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it('fires a timer and cancels another', async () => {
    let cancelledFired = false;
    const cancelled = systemClock.setTimeout(() => {
      cancelledFired = true;
    }, 1);
    systemClock.clearTimeout(cancelled);
    await new Promise<void>((resolve) => systemClock.setTimeout(resolve, 5));
    // Both timers were due long ago by now; only the uncancelled one ran.
    await new Promise<void>((resolve) => globalThis.setTimeout(resolve, 5));
    expect(cancelledFired).toBe(false);
  });
});
