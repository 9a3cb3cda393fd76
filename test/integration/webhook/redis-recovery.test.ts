/**
 * The Redis de-duplication store when Redis loses its keys (restarted without
 * persistence, flushed, failed over to an empty replica), on a real
 * redis-server. The loss is staged by deleting every key of the test's
 * prefix (the Redis is shared with other test files, so no FLUSHDB): from a
 * store's point of view it is the same.
 *
 * Two stores on one prefix play two copies of an agent. Copy A's periodic
 * check runs on a manual clock, so the order "B asks, A writes back, B asks
 * again" is staged exactly; the grace period is kept by Redis's own clock.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../packages/sdk/src/core/clock.js';
import { silentLogger } from '../../../packages/sdk/src/core/logger.js';
import type { DedupClaimResult } from '../../../packages/sdk/src/webhook/index.js';
import { createRedisDedupStore, type RedisClientLike } from '../../../packages/sdk/src/webhook/redis.js';
import { newDeliveryId } from '../../fixtures/webhook/deliveries.js';
import { deleteKeys, testRedis, uniquePrefix } from './redis-server.js';

const redis = await testRedis();
const skipRedis = redis === undefined && process.env['CI'] !== 'true';
if (skipRedis) console.warn('Redis tests skipped: no AMS_TEST_REDIS_URL and no redis-server installed.');
afterAll(() => redis?.stop());

function token(r: DedupClaimResult): string {
  if (r.status !== 'claimed') throw new Error(`expected claimed, got ${r.status}`);
  return r.token;
}

/** Waits (event loop turns, bounded) until `ready()` holds. */
async function until(ready: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    if (await ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe.skipIf(skipRedis)('Redis dedup store: Redis loses its keys (real redis-server)', () => {
  let client: Redis;
  let other: Redis;
  const prefixes: string[] = [];
  const prefix = (): string => {
    const p = uniquePrefix('recovery');
    prefixes.push(p);
    return p;
  };

  beforeAll(async () => {
    if (redis === undefined) throw new Error('CI needs Redis (AMS_TEST_REDIS_URL).');
    client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    other = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    for (const p of prefixes) await deleteKeys(client, p);
    client.disconnect();
    other.disconnect();
  });

  /** Copy A (checks on a manual clock) and copy B, on one prefix; both have seen the store once. */
  async function twoCopies(graceMs: number, clientA: RedisClientLike = client) {
    const keyPrefix = prefix();
    const clockA = new ManualClock();
    const a = createRedisDedupStore({
      client: clientA,
      keyPrefix,
      clock: clockA,
      recovery: { graceMs, checkEveryMs: 1_000 },
    });
    const b = createRedisDedupStore({ client: other, keyPrefix, recovery: { graceMs } });
    // Each copy handles something first, as running copies have: both know the store's generation.
    for (const store of [a, b]) {
      const id = newDeliveryId();
      await store.complete(id, token(await store.claim(id, 60_000)));
    }
    /** Runs A's periodic check now and waits until it wrote its marks back. */
    const checkA = async (written: string): Promise<void> => {
      clockA.advance(1_000);
      await until(async () => (await client.exists(keyPrefix + written)) === 1, 'copy A to write back');
    };
    return { keyPrefix, a, b, checkA };
  }

  it('an event copy A handled is not handled again by copy B after Redis lost its keys: B waits until A wrote it back, then sees it completed', async () => {
    const { keyPrefix, a, b, checkA } = await twoCopies(60_000);
    const handled = newDeliveryId();
    await a.complete(handled, token(await a.claim(handled, 60_000)));
    // A's ack did not reach the service, so the event comes again, to B, after Redis lost its keys.
    await deleteKeys(client, keyPrefix);
    expect((await b.claim(handled, 60_000)).status).toBe('recovering'); // before: 'claimed', a second run
    expect((await b.claim(newDeliveryId(), 60_000)).status).toBe('recovering'); // nothing new is claimed yet
    await checkA(handled);
    expect(await client.get(keyPrefix + handled)).toBe('done');
    expect(await client.pttl(keyPrefix + handled)).toBeGreaterThan(86_000_000); // the rest of its 24 h window
    expect((await b.claim(handled, 60_000)).status).toBe('completed');
  });

  it('a claim held while Redis lost its keys is written back under its holder (a sibling sees it in flight; the holder completes it)', async () => {
    const { keyPrefix, a, b, checkA } = await twoCopies(60_000);
    const running = newDeliveryId();
    const held = token(await a.claim(running, 60_000));
    await deleteKeys(client, keyPrefix);
    expect(await a.renew!(running, held, 60_000)).toBe(false); // a renewal meets the loss first: kept all the same
    expect((await b.claim(running, 60_000)).status).toBe('recovering');
    await checkA(running);
    expect((await b.claim(running, 60_000)).status).toBe('in_flight');
    expect(await a.renew!(running, held, 60_000)).toBe(true);
    await a.complete(running, held);
    expect((await b.claim(running, 60_000)).status).toBe('completed');
  });

  it('a completion recorded while Redis was unreachable is written back once it returns', async () => {
    let down = false;
    const real: RedisClientLike = client;
    const flaky: RedisClientLike = {
      set: (key: string, value: string, px: 'PX', ms: number, nx?: 'NX') =>
        down
          ? Promise.reject(new Error('down'))
          : nx === undefined
            ? real.set(key, value, px, ms)
            : real.set(key, value, px, ms, nx),
      get: (key) => client.get(key),
      eval: (script, numKeys, ...args) => client.eval(script, numKeys, ...args),
    };
    const { keyPrefix, a, b, checkA } = await twoCopies(60_000, flaky);
    const id = newDeliveryId();
    const held = token(await a.claim(id, 60_000));
    // The handler ran; recording its completion fails (Redis gone), and Redis comes back empty.
    down = true;
    await expect(a.complete(id, held)).rejects.toThrow('down');
    down = false;
    await deleteKeys(client, keyPrefix);
    expect((await b.claim(id, 60_000)).status).toBe('recovering');
    await checkA(id);
    expect(await client.get(keyPrefix + id)).toBe('done');
    expect((await b.claim(id, 60_000)).status).toBe('completed');
  });

  it('a copy that meets the new generation in many claims at once writes its marks back once', async () => {
    const keyPrefix = prefix();
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (message: string) => void warnings.push(message) };
    const a = createRedisDedupStore({ client, keyPrefix, logger, recovery: { graceMs: 60_000 } });
    const b = createRedisDedupStore({ client: other, keyPrefix, recovery: { graceMs: 60_000 } });
    const handled = newDeliveryId();
    await a.complete(handled, token(await a.claim(handled, 60_000)));
    await b.claim(newDeliveryId(), 60_000);
    await deleteKeys(client, keyPrefix);
    expect((await b.claim(newDeliveryId(), 60_000)).status).toBe('recovering'); // B starts the grace period
    const answers = await Promise.all(Array.from({ length: 20 }, () => a.claim(newDeliveryId(), 60_000)));
    expect(new Set(answers.map((r) => r.status))).toEqual(new Set(['recovering']));
    expect(warnings).toHaveLength(1);
    expect((await b.claim(handled, 60_000)).status).toBe('completed');
  });

  it('new claims go through once the grace period ends', async () => {
    const { keyPrefix, b } = await twoCopies(300);
    await deleteKeys(client, keyPrefix);
    const id = newDeliveryId();
    expect((await b.claim(id, 60_000)).status).toBe('recovering');
    let last: DedupClaimResult = { status: 'recovering' };
    await until(
      async () => (last = await b.claim(id, 60_000)).status !== 'recovering',
      'the grace period to end',
    );
    expect(last.status).toBe('claimed');
  });

  it('a fresh store claims at once (the first generation has no grace), and recovery: false keeps no generation', async () => {
    const keyPrefix = prefix();
    const fresh = createRedisDedupStore({ client, keyPrefix });
    expect((await fresh.claim(newDeliveryId(), 60_000)).status).toBe('claimed');
    expect(await client.exists(`${keyPrefix}~generation`)).toBe(1);
    const plainPrefix = prefix();
    const plain = createRedisDedupStore({ client, keyPrefix: plainPrefix, recovery: false });
    expect((await plain.claim(newDeliveryId(), 60_000)).status).toBe('claimed');
    expect(await client.exists(`${plainPrefix}~generation`)).toBe(0);
  });
});
