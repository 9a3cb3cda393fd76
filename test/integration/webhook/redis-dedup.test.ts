import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DedupClaimResult, DedupStore } from '../../../packages/sdk/src/webhook/index.js';
import { createRedisDedupStore } from '../../../packages/sdk/src/webhook/redis.js';
import { messageBody, newDeliveryId, SECRET, signedHeaders } from '../../fixtures/webhook/deliveries.js';
import { deleteKeys, testRedis, uniquePrefix } from './redis-server.js';

function token(r: DedupClaimResult): string {
  if (r.status !== 'claimed') throw new Error(`expected claimed, got ${r.status}`);
  return r.token;
}

const redis = await testRedis();
const skipRedis = redis === undefined && process.env['CI'] !== 'true';
if (skipRedis) console.warn('Redis tests skipped: no AMS_TEST_REDIS_URL and no redis-server installed.');
afterAll(() => redis?.stop());

function requireRedisUrl(): string {
  if (redis === undefined)
    throw new Error('CI needs Redis: .ci/services.sh starts redis-server and exports AMS_TEST_REDIS_URL.');
  return redis.url;
}

/** A connected client that fails fast instead of queueing commands while offline. */
async function connectRedis(): Promise<Redis> {
  const client = new Redis(requireRedisUrl(), { maxRetriesPerRequest: 1, lazyConnect: true });
  await client.connect();
  return client;
}

describe.skipIf(skipRedis)('Redis dedup store (real redis-server)', () => {
  let client: Redis;
  let store: DedupStore;
  const prefix = uniquePrefix('dedup');

  beforeAll(async () => {
    client = await connectRedis();
    store = createRedisDedupStore({ client, keyPrefix: prefix });
  });
  afterAll(async () => {
    await deleteKeys(client, prefix);
    client.disconnect();
  });

  it('claims once; copies are in flight, then completed with a 24 h marker', async () => {
    const id = newDeliveryId();
    const t = token(await store.claim(id, 60_000));
    expect((await store.claim(id, 60_000)).status).toBe('in_flight');
    const ttl = await client.pttl(prefix + id);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    await store.complete(id, t);
    expect((await store.claim(id, 60_000)).status).toBe('completed');
    expect(await client.get(prefix + id)).toBe('done');
    expect(await client.pttl(prefix + id)).toBeGreaterThan(86_000_000);
  });

  it('renews a claim only with the owning token, while it is held (the Agent keeps a short lease alive)', async () => {
    const id = newDeliveryId();
    const t = token(await store.claim(id, 1_000));
    expect(await store.renew!(id, 'someone-else', 60_000)).toBe(false);
    expect(await client.pttl(prefix + id)).toBeLessThanOrEqual(1_000);
    expect(await store.renew!(id, t, 60_000)).toBe(true);
    expect(await client.pttl(prefix + id)).toBeGreaterThan(1_000);
    await store.complete(id, t);
    // A completed id is no claim any more: renewing it neither succeeds nor shortens its marker.
    expect(await store.renew!(id, t, 60_000)).toBe(false);
    expect(await client.pttl(prefix + id)).toBeGreaterThan(86_000_000);
  });

  it('releases only with the owning token', async () => {
    const id = newDeliveryId();
    const t = token(await store.claim(id, 60_000));
    await store.release(id, 'someone-else');
    expect((await store.claim(id, 60_000)).status).toBe('in_flight');
    await store.release(id, t);
    token(await store.claim(id, 60_000));
  });

  it('lets a claim lapse after its lease (a crashed replica does not block the id)', async () => {
    const id = newDeliveryId();
    token(await store.claim(id, 30));
    let result: DedupClaimResult = { status: 'in_flight' };
    for (let i = 0; i < 100 && result.status !== 'claimed'; i++) {
      await new Promise((r) => setTimeout(r, 20));
      result = await store.claim(id, 60_000);
    }
    expect(result.status).toBe('claimed');
  });

  it('gives exactly one claim to many concurrent claimers', async () => {
    const id = newDeliveryId();
    const results = await Promise.all(Array.from({ length: 50 }, () => store.claim(id, 60_000)));
    expect(results.filter((r) => r.status === 'claimed')).toHaveLength(1);
  });

  it('refuses a client without the needed methods', () => {
    expect(() => createRedisDedupStore({ client: {} as never })).toThrow(/client/);
  });
});

function startReceiver(prefix: string): Promise<{ child: ChildProcess; url: string }> {
  const script = fileURLToPath(new URL('../../fixtures/webhook/receiver-process.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: {
      ...process.env,
      AMS_TEST_REDIS_URL: requireRedisUrl(),
      AMS_TEST_PREFIX: prefix,
      AMS_TEST_SECRET: SECRET,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /READY (\d+)/.exec(out);
      if (m) resolve({ child, url: `http://127.0.0.1:${m[1]}` });
    });
    child.on('exit', (code) => reject(new Error(`receiver process exited with ${code}`)));
  });
}

describe.skipIf(skipRedis)('two receiver processes sharing one Redis', () => {
  const prefix = uniquePrefix('replicas');
  let client: Redis;
  let replicas: { child: ChildProcess; url: string }[] = [];

  beforeAll(async () => {
    client = await connectRedis();
    replicas = await Promise.all([startReceiver(prefix), startReceiver(prefix)]);
  });
  afterAll(async () => {
    for (const r of replicas) r.child.kill('SIGTERM');
    await deleteKeys(client, prefix);
    client.disconnect();
  });

  it('runs the handler exactly once for one delivery sent to both at the same time', async () => {
    const deliveryId = newDeliveryId();
    const body = messageBody();
    const headers = await signedHeaders(body, { deliveryId });
    const send = (url: string) => fetch(url, { method: 'POST', body, headers });
    const pending = replicas.map((r) =>
      send(r.url).then(async (res) => ({
        url: r.url,
        status: res.status,
        json: (await res.json()) as unknown,
      })),
    );
    // The replica that lost the claim answers at once; the winner waits at the gate.
    const first = await Promise.race(pending);
    expect(first.status).toBe(429);
    await client.rpush(`${prefix}gate:${deliveryId}`, 'go');
    const results = await Promise.all(pending);
    expect(results.map((r) => r.status).sort()).toEqual([200, 429]);
    expect(await client.lrange(`${prefix}handled`, 0, -1)).toHaveLength(1);
    // The service retries the 429 later: now it is a completed duplicate on either replica.
    for (const r of replicas) {
      const retry = await send(r.url);
      expect(retry.status).toBe(200);
      expect(((await retry.json()) as { data: { status: string } }).data.status).toBe('duplicate');
    }
    expect(await client.lrange(`${prefix}handled`, 0, -1)).toHaveLength(1);
  });
});
