import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../packages/sdk/src/core/clock.js';
import { LIMITS } from '../../../../packages/sdk/src/core/limits.js';
import { createMemoryDedupStore, type DedupClaimResult } from '../../../../packages/sdk/src/webhook/index.js';

const DAY = LIMITS.WEBHOOK_DEDUP_WINDOW_MS;
const LEASE = 60_000;

function uuid(n: number): string {
  const hex = n.toString(16).padStart(32, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20)}`;
}

function token(r: DedupClaimResult): string {
  if (r.status !== 'claimed') throw new Error(`expected claimed, got ${r.status}`);
  return r.token;
}

describe('memory dedup store', () => {
  it('claims once, reports in-flight copies, then completed copies for 24 h', () => {
    const clock = new ManualClock(0);
    const store = createMemoryDedupStore({ clock });
    const id = uuid(1);
    const t = token(store.claim(id, LEASE));
    expect(store.claim(id, LEASE).status).toBe('in_flight');
    store.complete(id, t);
    expect(store.claim(id, LEASE).status).toBe('completed');
    clock.advance(DAY - 1);
    expect(store.claim(id, LEASE).status).toBe('completed');
    clock.advance(1);
    expect(store.claim(id, LEASE).status).toBe('claimed');
  });

  it('release lets a retry claim again; a stale token is ignored', () => {
    const clock = new ManualClock(0);
    const store = createMemoryDedupStore({ clock });
    const id = uuid(2);
    const first = token(store.claim(id, LEASE));
    store.release(id, 'not-the-token');
    expect(store.claim(id, LEASE).status).toBe('in_flight');
    store.release(id, first);
    const second = token(store.claim(id, LEASE));
    store.release(id, first); // the first claim's token no longer owns the id
    expect(store.claim(id, LEASE).status).toBe('in_flight');
    store.complete(id, second);
    store.release(id, second); // completed ids are not released
    expect(store.claim(id, LEASE).status).toBe('completed');
  });

  it('lets a claim lapse after its lease', () => {
    const clock = new ManualClock(0);
    const store = createMemoryDedupStore({ clock });
    token(store.claim(uuid(3), LEASE));
    clock.advance(LEASE);
    expect(store.claim(uuid(3), LEASE).status).toBe('claimed');
  });

  it('records a completion whose claim was already gone', () => {
    const clock = new ManualClock(0);
    const store = createMemoryDedupStore({ clock });
    const t = token(store.claim(uuid(4), LEASE));
    clock.advance(LEASE + 1);
    store.sweep();
    expect(store.size).toBe(0);
    store.complete(uuid(4), t);
    expect(store.claim(uuid(4), LEASE).status).toBe('completed');
  });

  it('treats upper- and lower-case UUIDs as one id, and keeps non-UUID ids apart', () => {
    const store = createMemoryDedupStore({ clock: new ManualClock(0) });
    token(store.claim(uuid(0xabc), LEASE));
    expect(store.claim(uuid(0xabc).toUpperCase(), LEASE).status).toBe('in_flight');
    token(store.claim('delivery-a', LEASE));
    token(store.claim('delivery-b', LEASE));
    expect(store.claim('delivery-a', LEASE).status).toBe('in_flight');
  });

  it('sweeps expired ids a few at a time as operations arrive', () => {
    const clock = new ManualClock(0);
    const store = createMemoryDedupStore({ clock });
    for (let i = 0; i < 100; i++) store.complete(uuid(i), '');
    expect(store.size).toBe(100);
    clock.advance(DAY);
    store.claim(uuid(1000), LEASE); // sweeps a bounded step, not everything
    expect(store.size).toBeGreaterThan(80);
    for (let i = 0; i < 20; i++) store.claim(uuid(2000 + i), LEASE);
    expect(store.size).toBe(21);
  });

  it('at the bound forgets the oldest completed id, and refuses while the oldest is in flight', () => {
    const clock = new ManualClock(0);
    const store = createMemoryDedupStore({ clock, maxEntries: 4 });
    for (let i = 0; i < 4; i++) store.complete(uuid(i), '');
    token(store.claim(uuid(10), LEASE));
    expect(store.evictions).toBe(1);
    expect(store.size).toBe(4);
    expect(store.claim(uuid(0), LEASE).status).toBe('claimed'); // forgotten early: evicts uuid(1)
    expect(store.claim(uuid(2), LEASE).status).toBe('completed');
    const full = createMemoryDedupStore({ clock, maxEntries: 2 });
    token(full.claim(uuid(20), LEASE));
    token(full.claim(uuid(21), LEASE));
    expect(full.claim(uuid(22), LEASE).status).toBe('busy');
    clock.advance(LEASE);
    expect(full.claim(uuid(22), LEASE).status).toBe('claimed');
  });

  it('keeps every id across growth of its arrays', () => {
    const store = createMemoryDedupStore({ clock: new ManualClock(0), initialCapacity: 16 });
    for (let i = 0; i < 5000; i++) token(store.claim(uuid(i * 7919), LEASE));
    expect(store.size).toBe(5000);
    for (let i = 0; i < 5000; i++) expect(store.claim(uuid(i * 7919), LEASE).status).toBe('in_flight');
    expect(store.byteLength).toBeLessThan(5000 * 80);
  });

  it('refuses bad options', () => {
    expect(() => createMemoryDedupStore({ maxEntries: 0 })).toThrow(/maxEntries/);
    expect(() => createMemoryDedupStore({ windowMs: 1.5 })).toThrow(/windowMs/);
  });

  it('behaves like a simple Map model under random operations and time', () => {
    type Op =
      | { kind: 'claim'; id: number }
      | { kind: 'complete'; id: number }
      | { kind: 'release'; id: number; stale: boolean }
      | { kind: 'advance'; ms: number };
    const id = fc.integer({ min: 0, max: 120 });
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant('claim' as const), id }),
      fc.record({ kind: fc.constant('complete' as const), id }),
      fc.record({ kind: fc.constant('release' as const), id, stale: fc.boolean() }),
      fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 40_000 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), fc.boolean(), (ops, hashed) => {
        const clock = new ManualClock(0);
        const store = createMemoryDedupStore({ clock, windowMs: 100_000, initialCapacity: 16 });
        const model = new Map<number, { state: 'in_flight' | 'completed'; until: number; token: string }>();
        const key = (n: number): string => (hashed ? `d-${n}` : uuid(n));
        for (const o of ops) {
          const now = clock.now();
          const m = o.kind === 'advance' ? undefined : model.get(o.id);
          const live = m !== undefined && m.until > now ? m : undefined;
          if (o.kind === 'advance') clock.advance(o.ms);
          else if (o.kind === 'claim') {
            const r = store.claim(key(o.id), 30_000);
            expect(r.status).toBe(live === undefined ? 'claimed' : live.state);
            if (r.status === 'claimed')
              model.set(o.id, { state: 'in_flight', until: now + 30_000, token: r.token });
          } else if (o.kind === 'complete') {
            store.complete(key(o.id), live?.token ?? '');
            model.set(o.id, { state: 'completed', until: now + 100_000, token: '' });
          } else {
            const t = o.stale ? 'stale' : (live?.token ?? 'none');
            store.release(key(o.id), t);
            if (live?.state === 'in_flight' && live.token === t) model.delete(o.id);
          }
        }
        const now = clock.now();
        expect(store.size).toBeGreaterThanOrEqual([...model.values()].filter((m) => m.until > now).length);
      }),
      { numRuns: 300 },
    );
  });
});
