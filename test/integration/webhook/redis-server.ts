/**
 * The Redis server for the webhook Redis tests: `AMS_TEST_REDIS_URL` when
 * set (CI's .ci/services.sh exports it); otherwise a private `redis-server`
 * started on a free loopback port when the binary is installed, so the tests
 * run locally too instead of being skipped. Undefined only when neither
 * exists (then the tests are skipped locally and fail in CI).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';

/** A Redis server the tests may use. */
export interface TestRedis {
  readonly url: string;
  /** Stops the server if this module started it. */
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

async function waitForPing(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined); // refused until the server listens
    try {
      await client.connect();
      if ((await client.ping()) === 'PONG') return;
    } catch {
      // not listening yet
    } finally {
      client.disconnect();
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('redis-server did not answer PING');
}

/** True when the `redis-server` binary can be run. */
export function redisServerInstalled(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** A `redis-server` this module started. */
export interface SpawnedRedis extends TestRedis {
  readonly port: number;
}

/**
 * Starts a private `redis-server` (no persistence) on `port`, or on a free
 * loopback port, and waits until it answers PING.
 */
export async function startRedisServer(port?: number): Promise<SpawnedRedis> {
  const chosen = port ?? (await freePort());
  const child = spawn(
    'redis-server',
    ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', '/tmp'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${chosen}`;
  await waitForPing(url, child);
  return {
    url,
    port: chosen,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The configured Redis, a freshly started local one, or undefined. */
export async function testRedis(): Promise<TestRedis | undefined> {
  const configured = process.env['AMS_TEST_REDIS_URL'];
  if (configured) return { url: configured, stop: () => Promise.resolve() };
  if (!redisServerInstalled()) return undefined;
  return startRedisServer();
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
