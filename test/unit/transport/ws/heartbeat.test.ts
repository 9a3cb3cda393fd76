import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../packages/sdk/src/core/clock.js';
import { createHeartbeat } from '../../../../packages/sdk/src/transport/ws/index.js';
import { resolveHeartbeat } from '../../../../packages/sdk/src/transport/ws/heartbeat.js';

function setup(ping = true): {
  clock: ManualClock;
  pings: number[];
  dead: number[];
  hb: ReturnType<typeof createHeartbeat>;
} {
  const clock = new ManualClock(0);
  const pings: number[] = [];
  const dead: number[] = [];
  const hb = createHeartbeat(
    clock,
    { intervalMs: 25_000, timeoutMs: 60_000 },
    {
      ping: ping ? () => pings.push(clock.now()) : undefined,
      onDead: () => dead.push(clock.now()),
    },
  );
  return { clock, pings, dead, hb };
}

describe('heartbeat', () => {
  it('pings every interval and declares a silent peer dead after the timeout', () => {
    const { clock, pings, dead } = setup();
    clock.advance(59_999);
    expect(pings).toEqual([25_000, 50_000]);
    expect(dead).toEqual([]);
    clock.advance(1);
    expect(dead).toEqual([60_000]);
    clock.advance(600_000);
    expect(pings).toEqual([25_000, 50_000]);
    expect(dead).toHaveLength(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('any activity pushes the deadline back', () => {
    const { clock, dead, hb } = setup();
    clock.advance(50_000);
    hb.activity();
    clock.advance(59_999);
    expect(dead).toEqual([]);
    clock.advance(1);
    expect(dead).toEqual([110_000]);
  });

  it('without ping support it only watches for silence', () => {
    const { clock, pings, dead } = setup(false);
    clock.advance(60_000);
    expect(pings).toEqual([]);
    expect(dead).toEqual([60_000]);
  });

  it('stop() cancels every timer', () => {
    const { clock, pings, dead, hb } = setup();
    hb.stop();
    expect(clock.pendingTimers).toBe(0);
    clock.advance(1_000_000);
    expect([pings, dead]).toEqual([[], []]);
  });

  it('0 disables pings or the dead check; bad figures are refused', () => {
    expect(resolveHeartbeat({ intervalMs: 0, timeoutMs: 0 })).toEqual({ intervalMs: 0, timeoutMs: 0 });
    expect(resolveHeartbeat()).toEqual({ intervalMs: 10_000, timeoutMs: 25_000 });
    expect(() => resolveHeartbeat({ timeoutMs: -5 })).toThrow(/heartbeat.timeoutMs/);
  });
});

describe('heartbeat suspension', () => {
  it('suspend() stops the dead check (pings go on); resume() counts as activity', () => {
    const { clock, pings, dead, hb } = setup();
    clock.advance(10_000);
    hb.suspend();
    hb.suspend();
    clock.advance(100_000);
    expect(dead).toEqual([]);
    expect(pings).toEqual([25_000, 50_000, 75_000, 100_000]);
    hb.resume();
    hb.resume();
    clock.advance(59_999);
    expect(dead).toEqual([]);
    clock.advance(1);
    expect(dead).toEqual([170_000]);
    hb.stop();
    hb.resume();
    expect(clock.pendingTimers).toBe(0);
  });
});
