/**
 * Access to the test Redis server.
 *
 * Reads `AMS_TEST_REDIS_URL` (e.g. `redis://127.0.0.1:6390`, set by
 * .ci/services.sh). Without it, Redis tests are skipped locally with a
 * one-line reason, but fail in CI (`CI=true`), where the server must exist.
 *
 * Local set-up:
 *   redis-server --port 6390 --bind 127.0.0.1 --save '' --appendonly no --daemonize yes
 *   AMS_TEST_REDIS_URL=redis://127.0.0.1:6390 npx vitest run test/integration/webhook
 */
import { Redis } from 'ioredis';

/** The test Redis URL, when configured. */
export const REDIS_URL: string | undefined = process.env['AMS_TEST_REDIS_URL'] || undefined;

/** True when Redis tests must be skipped: no URL and not in CI. */
export const skipRedis: boolean = REDIS_URL === undefined && process.env['CI'] !== 'true';

if (skipRedis) {
  console.warn(
    'Redis tests skipped: AMS_TEST_REDIS_URL is not set (start redis-server locally and set it to run them).',
  );
}

/** The URL, or a failure explaining that CI must provide one. */
export function requireRedisUrl(): string {
  if (REDIS_URL === undefined) {
    throw new Error(
      'AMS_TEST_REDIS_URL must be set when CI=true: .ci/services.sh starts redis-server and exports it.',
    );
  }
  return REDIS_URL;
}

/** A connected client that fails fast instead of queueing commands while offline. */
export async function connectRedis(): Promise<Redis> {
  const client = new Redis(requireRedisUrl(), {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
    lazyConnect: true,
  });
  await client.connect();
  return client;
}

/** A key prefix unique to this test run, so parallel runs never share keys. */
export function uniquePrefix(name: string): string {
  return `ams:test:${name}:${process.pid}:${Date.now().toString(36)}:${Math.random().toString(36).slice(2)}:`;
}

/** Deletes every key under `prefix`. */
export async function deleteKeys(client: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    if (keys.length > 0) await client.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}
