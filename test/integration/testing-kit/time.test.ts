/**
 * Time that never stalls (issue #27): the client limiters wait on the
 * world's mixed clock, whose window waits move the virtual time forward,
 * so a burst of sends on a clock nobody advances completes.
 */
import { describe, expect, it } from 'vitest';
import { createRateLimiter, ManualClock } from 'agent-messaging-sdk/protocol';
import { createMixedClock, createTestWorld } from '../../../packages/dev/src/testing/index.js';

describe('the mixed clock', () => {
  it('satisfies a limiter on a frozen virtual clock: 20 acquires of 5 per second complete', async () => {
    const virtual = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    const limiter = createRateLimiter({ limit: 5, intervalMs: 1_000, clock: createMixedClock(virtual) });
    const start = virtual.now();
    await Promise.all(Array.from({ length: 20 }, () => limiter.acquire()));
    expect(limiter.pending).toBe(0);
    // Three windows waited for, and the virtual time moved by exactly them.
    expect(virtual.now() - start).toBe(3_000);
  });

  it('moves the time for a window only once the requests already sent were answered, with no real pause', async () => {
    const virtual = new ManualClock(0);
    const clock = createMixedClock(virtual);
    const order: string[] = [];
    // A request sent in the current window, answered a little later (the service counts it on arrival).
    const answer = new Promise<void>((resolve) =>
      setTimeout(() => {
        order.push(`answered at ${clock.now()}`);
        resolve();
      }, 40),
    );
    clock.track!(answer);
    const fired = new Promise<void>((resolve) =>
      clock.setTimeout(
        () => {
          order.push(`window at ${clock.now()}`);
          resolve();
        },
        1_000,
        { window: true },
      ),
    );
    await fired;
    expect(order).toEqual(['answered at 0', 'window at 1000']);
    // Nothing in flight: the next window fires on the next turn of the event loop, before a 1 ms timer set after it.
    const next: string[] = [];
    const both = Promise.all([
      new Promise<void>((resolve) =>
        clock.setTimeout(() => resolve(void next.push('window')), 1_000, { window: true }),
      ),
      new Promise<void>((resolve) => setTimeout(() => resolve(void next.push('1 ms')), 1)),
    ]);
    await both;
    expect(next).toEqual(['window', '1 ms']);
  });

  it('keeps real timers for everything else: a plain timer does not move the virtual time', async () => {
    const virtual = new ManualClock(0);
    const clock = createMixedClock(virtual);
    await new Promise<void>((resolve) => clock.setTimeout(resolve, 5));
    expect(clock.now()).toBe(0);
  });
});

describe('a world on a clock nobody advances', () => {
  it('completes 100 agent sends in a row, each delivered to the user in order', async () => {
    const world = await createTestWorld();
    try {
      const before = world.server.clock.now();
      for (let i = 0; i < 100; i++) await world.agent.send(world.conversationId, `message ${i}`);
      // 100 sends at 5 per second: the world moved its virtual time by the 19 windows waited.
      expect(world.server.clock.now() - before).toBeGreaterThanOrEqual(19_000);
      for (let i = 0; i < 100; i++) {
        expect((await world.waitForReply({ kind: 'text' })).text).toBe(`message ${i}`);
      }
    } finally {
      await world.close();
    }
  });

  it('completes 8 artifacts in a row (artifacts.send shares the message limit)', async () => {
    const world = await createTestWorld();
    try {
      for (let i = 0; i < 8; i++) {
        await world.agent.artifacts.send(world.conversationId, {
          content: { kind: 'confirm', title: `q${i}` },
        });
      }
      for (let i = 0; i < 8; i++) {
        expect((await world.waitForReply({ kind: 'artifact' })).content.title).toBe(`q${i}`);
      }
    } finally {
      await world.close();
    }
  });
});
