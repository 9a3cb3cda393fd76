/**
 * Issue #18: a receiver on Redis must answer 503 with Retry-After while Redis
 * is down, fast, whatever the client's settings, and recover when Redis is
 * back. A dedicated redis-server is started by this file on a free port,
 * stopped, and restarted on the same port. The receiver is built as
 * docs/scaling.md shows, once with the docs' client configuration and once
 * with ioredis's defaults (`new Redis(url)`), which queue commands while
 * disconnected and used to leave the delivery without any answer.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTimeoutError } from '../../../packages/sdk/src/core/errors/guards.js';
import { WEBHOOK_RESPONSE_TIMEOUT_MS } from '../../../packages/sdk/src/core/limits/webhook.js';
import {
  createWebhookReceiver,
  type WebhookEvent,
  type WebhookReceiverEvent,
} from '../../../packages/sdk/src/webhook/index.js';
import { createNodeHandler } from '../../../packages/sdk/src/webhook/node.js';
import {
  createRedisDedupStore,
  DEFAULT_REDIS_OPERATION_TIMEOUT_MS,
} from '../../../packages/sdk/src/webhook/redis.js';
import { messageBody, newDeliveryId, SECRET, signedHeaders } from '../../fixtures/webhook/deliveries.js';
import { DOCS_REDIS_OPTIONS, docsRedisClient } from '../../fixtures/webhook/redis-client.js';
import { redisServerInstalled, startRedisServer, uniquePrefix, type SpawnedRedis } from './redis-server.js';

const installed = redisServerInstalled();
const skip = !installed && process.env['CI'] !== 'true';
if (skip) console.warn('Redis outage tests skipped: redis-server is not installed.');

/** Generous margin over the documented limit, for a loaded machine. */
const MARGIN_MS = 1500;

function waitFor(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  const poll = async (): Promise<void> => {
    while (Date.now() < deadline) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`${what} did not happen within ${ms} ms`);
  };
  return poll();
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    );
  });
}

const CLIENTS: Record<string, (url: string) => Redis> = {
  "docs/scaling.md's configuration": (url) => docsRedisClient(url, () => undefined),
  'ioredis defaults (new Redis(url))': (url) => {
    const redis = new Redis(url);
    redis.on('error', () => undefined); // the failed reconnects, expected here
    return redis;
  },
};

describe('docs/scaling.md shows the configuration this file runs', () => {
  it('contains the client options of test/fixtures/webhook/redis-client.ts verbatim', () => {
    const doc = readFileSync(new URL('../../../docs/scaling.md', import.meta.url), 'utf8');
    const fixture = readFileSync(new URL('../../fixtures/webhook/redis-client.ts', import.meta.url), 'utf8');
    const body = /export const DOCS_REDIS_OPTIONS = \{\n([\s\S]*?)\n\} satisfies/.exec(fixture)?.[1];
    expect(body?.split('\n')).toHaveLength(Object.keys(DOCS_REDIS_OPTIONS).length);
    expect(doc).toContain(`const redis = new Redis(process.env.REDIS_URL!, {\n${body!}\n});`);
  });
});

describe.skipIf(skip).each(Object.keys(CLIENTS))('receiver on Redis while Redis is down: %s', (name) => {
  let redis: SpawnedRedis;
  let client: Redis;
  let server: Server;
  let url: string;
  const handled: WebhookEvent[] = [];
  const events: WebhookReceiverEvent[] = [];
  const prefix = uniquePrefix('outage');

  beforeAll(async () => {
    if (!installed) throw new Error('CI needs redis-server: .ci/services.sh installs it.');
    redis = await startRedisServer();
    client = CLIENTS[name]!(redis.url);
    await waitFor('the client to be ready', 10_000, () => Promise.resolve(client.status === 'ready'));
    const receiver = createWebhookReceiver({
      secret: SECRET,
      dedup: createRedisDedupStore({ client, keyPrefix: prefix }),
      handler: (e) => {
        handled.push(e);
      },
      onEvent: (e) => events.push(e),
    });
    const handle = createNodeHandler(receiver);
    server = createServer((req, res) => void handle(req, res));
    url = await listen(server);
  });
  afterAll(async () => {
    client?.disconnect();
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    await redis?.stop();
  });

  it('answers 503 with Retry-After within the limit while Redis is down, then 200 once it is back, running the handler exactly once', async () => {
    const deliveryId = newDeliveryId();
    const body = messageBody();
    const headers = await signedHeaders(body, { deliveryId });
    const send = () => fetch(url, { method: 'POST', body, headers });

    await redis.stop();
    await waitFor('the client to notice', 5000, () => Promise.resolve(client.status !== 'ready'));
    const started = performance.now();
    const down = await send();
    const elapsed = performance.now() - started;
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('30');
    expect(((await down.json()) as { error: { code: string } }).error.code).toBe('WEBHOOK_STORE_UNAVAILABLE');
    expect(elapsed).toBeLessThan(DEFAULT_REDIS_OPERATION_TIMEOUT_MS + MARGIN_MS);
    expect(elapsed).toBeLessThan(WEBHOOK_RESPONSE_TIMEOUT_MS);
    expect(handled).toHaveLength(0);
    const storeErrors = events.filter((e) => e.type === 'storeError');
    expect(storeErrors.map((e) => e.operation)).toEqual(['claim']);
    // The defaults queue the command, so the store's own time limit answers; the docs' client fails at once.
    if (name.startsWith('ioredis defaults')) expect(isTimeoutError(storeErrors[0]!.error)).toBe(true);
    else expect(isTimeoutError(storeErrors[0]!.error)).toBe(false);

    redis = await startRedisServer(redis.port);
    await waitFor('the client to reconnect', 15_000, () => Promise.resolve(client.status === 'ready'));
    // A claim queued during the outage may land now; the store releases it at once.
    await waitFor(
      'no claim left for the delivery',
      5000,
      async () => (await client.exists(prefix + deliveryId)) === 0,
    );

    const back = await send();
    expect(back.status).toBe(200);
    expect(await back.json()).toEqual({ data: { delivery_id: deliveryId, status: 'processed' } });
    expect(handled.map((e) => e.deliveryId)).toEqual([deliveryId]);

    const copy = await send();
    expect(copy.status).toBe(200);
    expect(await copy.json()).toEqual({ data: { delivery_id: deliveryId, status: 'duplicate' } });
    expect(handled).toHaveLength(1);
  }, 40_000);
});
