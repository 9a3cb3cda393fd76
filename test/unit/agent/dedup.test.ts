import { describe, expect, it } from 'vitest';
import { createEventDedup, messageDedupKey } from '../../../packages/sdk/src/agent/dedup.js';
import { ManualClock } from '../../../packages/sdk/src/core/clock.js';
import { silentLogger, type Logger } from '../../../packages/sdk/src/core/logger.js';
import { createMemoryDedupStore } from '../../../packages/sdk/src/webhook/dedup/memory.js';
import type { DedupStore } from '../../../packages/sdk/src/webhook/dedup/types.js';

const DELIVERY = '01890f3e-1c2a-7b3c-8d4e-5f6a7b8c9d0e';

function warnings(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { ...silentLogger, lines, warn: (m) => void lines.push(m) };
}

describe('event de-duplication', () => {
  it('claims a delivery once; a completed one is a duplicate, a released one can be claimed again', async () => {
    const clock = new ManualClock(0);
    const d = createEventDedup({
      store: createMemoryDedupStore({ clock }),
      leaseMs: 1000,
      logger: silentLogger,
    });
    const first = await d.claimDelivery(DELIVERY);
    expect(first.status).toBe('claimed');
    expect(await d.claimDelivery(DELIVERY)).toEqual({ status: 'duplicate', state: 'in_flight' });
    if (first.status !== 'claimed') throw new Error('unreachable');
    await first.claim.release();
    const again = await d.claimDelivery(DELIVERY);
    expect(again.status).toBe('claimed');
    if (again.status !== 'claimed') throw new Error('unreachable');
    await again.claim.complete();
    expect(await d.claimDelivery(DELIVERY)).toEqual({ status: 'duplicate', state: 'completed' });
  });

  it('message ids live under their own key in the same store (shared with the webhook receiver)', async () => {
    const store = createMemoryDedupStore({ clock: new ManualClock(0) });
    const d = createEventDedup({ store, leaseMs: 1000, logger: silentLogger });
    const c = await d.claimMessage('user-1', 'm-1');
    if (c.status !== 'claimed') throw new Error('expected a claim');
    await c.claim.complete();
    expect(store.claim(messageDedupKey('user-1', 'm-1'), 10)).toEqual({ status: 'completed' });
    // The same message id from another sender is another message.
    expect((await d.claimMessage('user-2', 'm-1')).status).toBe('claimed');
    // A delivery id equal to the message id does not collide.
    expect((await d.claimDelivery('m-1')).status).toBe('claimed');
  });

  it('a failing store makes the claim unavailable (nothing runs unclaimed); a full one lets events through, with a warning', async () => {
    const failing: DedupStore = {
      claim: () => Promise.reject(new Error('down')),
      complete: () => undefined,
      release: () => undefined,
    };
    const log = warnings();
    const d = createEventDedup({ store: failing, leaseMs: 1000, logger: log });
    expect(await d.claimDelivery(DELIVERY)).toEqual({ status: 'unavailable' });
    expect(await d.claimMessage('sender', 'm-1')).toEqual({ status: 'unavailable' });
    const busy: DedupStore = {
      claim: () => ({ status: 'busy' }),
      complete: () => undefined,
      release: () => undefined,
    };
    expect(
      (await createEventDedup({ store: busy, leaseMs: 1, logger: log }).claimDelivery(DELIVERY)).status,
    ).toBe('claimed');
    expect(log.lines).toHaveLength(3);
  });

  it('a store that is recovering (Redis lost its keys) makes the claim unavailable: the event waits, no warning per event', async () => {
    const recovering: DedupStore = {
      claim: () => ({ status: 'recovering' }),
      complete: () => undefined,
      release: () => undefined,
    };
    const log = warnings();
    const d = createEventDedup({ store: recovering, leaseMs: 1000, logger: log });
    expect(await d.claimDelivery(DELIVERY)).toEqual({ status: 'unavailable' });
    expect(await d.claimMessage('sender', 'm-1')).toEqual({ status: 'unavailable' });
    expect(log.lines).toEqual([]);
  });

  it('completion and release failures are logged, never thrown', async () => {
    const store: DedupStore = {
      claim: () => ({ status: 'claimed', token: 't' }),
      complete: () => Promise.reject(new Error('x')),
      release: () => {
        throw new Error('y');
      },
    };
    const log = warnings();
    const c = await createEventDedup({ store, leaseMs: 1, logger: log }).claimDelivery(DELIVERY);
    if (c.status !== 'claimed') throw new Error('expected a claim');
    await expect(c.claim.complete()).resolves.toBeUndefined();
    await expect(c.claim.release()).resolves.toBeUndefined();
    expect(log.lines).toHaveLength(2);
  });
  it('renews on after a renewal found the claim gone (a store that lost its keys writes it back), warning once', async () => {
    const clock = new ManualClock(0);
    const answers = [false, false, true, true];
    let renewals = 0;
    const store: DedupStore = {
      claim: () => ({ status: 'claimed', token: 't' }),
      complete: () => undefined,
      release: () => undefined,
      renew: () => answers[renewals++] ?? true,
    };
    const log = warnings();
    const d = createEventDedup({ store, leaseMs: 3_000, logger: log, clock });
    const c = await d.claimDelivery(DELIVERY);
    if (c.status !== 'claimed') throw new Error('expected a claim');
    for (let i = 0; i < 5; i++) {
      clock.advance(1_000);
      for (let k = 0; k < 4; k++) await Promise.resolve();
    }
    expect(renewals).toBe(5);
    expect(log.lines).toEqual(['a claim lapsed while its handler ran']);
    await c.claim.complete();
    clock.advance(10_000);
    expect(renewals).toBe(5);
  });

  it('a copy of an event this process holds, arriving after the claim lapsed, is a duplicate: the claim becomes the waiting event’s again', async () => {
    const clock = new ManualClock(0);
    const memory = createMemoryDedupStore({ clock });
    // A store without renewals: a claim held longer than its lease lapses.
    const store: DedupStore = {
      claim: (key, ms) => memory.claim(key, ms),
      complete: (key, token) => memory.complete(key, token),
      release: (key, token) => memory.release(key, token),
    };
    const log = warnings();
    const d = createEventDedup({ store, leaseMs: 3_000, logger: log, clock });
    const first = await d.claimDelivery(DELIVERY);
    if (first.status !== 'claimed') throw new Error('expected a claim');
    clock.advance(3_001); // the event waits its turn in its conversation longer than the lease
    // Before: 'claimed', and the event ran twice in this process (the copies chaos test).
    expect(await d.claimDelivery(DELIVERY)).toEqual({ status: 'duplicate', state: 'in_flight' });
    expect(log.lines).toEqual(['a claim this process held had lapsed; it holds it again']);
    expect(memory.claim(DELIVERY, 3_000).status).toBe('in_flight'); // held again, for the waiting event
    await first.claim.complete();
    expect(memory.claim(DELIVERY, 3_000).status).toBe('completed');
  });

  it('renews a held claim every third of its lease until it is settled; a dead holder’s claim lapses', async () => {
    const clock = new ManualClock(0);
    const store = createMemoryDedupStore({ clock });
    const d = createEventDedup({ store, leaseMs: 3_000, logger: silentLogger, clock });
    const c = await d.claimDelivery(DELIVERY);
    if (c.status !== 'claimed') throw new Error('expected a claim');
    // A 10-minute handler: the lease is renewed all along, so another process never gets the id.
    for (let t = 0; t < 600_000; t += 1_000) {
      clock.advance(1_000);
      await Promise.resolve();
      await Promise.resolve();
    }
    expect(store.claim(DELIVERY, 3_000).status).toBe('in_flight');
    await c.claim.complete();
    expect(store.claim(DELIVERY, 3_000).status).toBe('completed');
    // A claim whose holder stopped renewing (a process that died) lapses one lease later.
    const other = createEventDedup({ store, leaseMs: 3_000, logger: silentLogger, clock });
    const held = store.claim('01890f3e-1c2a-7b3c-8d4e-5f6a7b8c9d0f', 3_000);
    expect(held.status).toBe('claimed');
    clock.advance(3_001);
    expect((await other.claimDelivery('01890f3e-1c2a-7b3c-8d4e-5f6a7b8c9d0f')).status).toBe('claimed');
  });
});
