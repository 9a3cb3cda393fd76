import { describe, expect, it } from 'vitest';
import { RecentMessageIds } from '../../../packages/sdk/src/client/recent-ids.js';
import { ManualClock } from '../../../packages/sdk/src/core/clock.js';
import { MESSAGE_DEDUP_MEMORY_MS } from '../../../packages/sdk/src/crypto/freshness.js';

describe('RecentMessageIds (the UserClient de-duplication memory)', () => {
  it('remembers an id for MESSAGE_DEDUP_MEMORY_MS (25 h), then forgets it', () => {
    const clock = new ManualClock(0);
    const recent = new RecentMessageIds(clock);
    expect(recent.add('agent-1', 'm1')).toBe(true);
    expect(recent.add('agent-1', 'm1')).toBe(false);
    expect(recent.add('agent-2', 'm1')).toBe(true);
    clock.advance(MESSAGE_DEDUP_MEMORY_MS - 1);
    expect(recent.add('agent-1', 'm1')).toBe(false);
    clock.advance(1);
    expect(recent.add('agent-1', 'm1')).toBe(true);
    expect(recent.size).toBe(1);
    expect(recent.add('agent-1', 'm1')).toBe(false);
  });

  it('is bounded: when full, the oldest ids are dropped first', () => {
    const clock = new ManualClock(0);
    const recent = new RecentMessageIds(clock, 1000, 3);
    for (const id of ['a', 'b', 'c', 'd']) expect(recent.add('s', id)).toBe(true);
    expect(recent.size).toBe(3);
    expect(recent.add('s', 'd')).toBe(false);
    expect(recent.add('s', 'a')).toBe(true);
  });

  it('keeps working across many ids (the order queue is compacted)', () => {
    const clock = new ManualClock(0);
    const recent = new RecentMessageIds(clock, 10, 100_000);
    for (let i = 0; i < 5000; i++) {
      expect(recent.add('s', `m${i}`)).toBe(true);
      clock.advance(1);
    }
    expect(recent.size).toBe(10);
    expect(recent.add('s', 'm4999')).toBe(false);
    expect(recent.add('s', 'm4989')).toBe(true);
  });
});
