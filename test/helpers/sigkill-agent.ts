/**
 * An agent process for the SIGKILL tests (`test/helpers/agent-child.ts`
 * starts and restarts it): a WebSocket Agent with a `FileKeyStore` and the
 * Redis de-duplication store (the in-memory one without a Redis URL), whose
 * handler appends one line per handled message to a file, synchronously,
 * before it returns — a record that survives SIGKILL exactly.
 *
 * The parent arms one kill at a time over IPC; the process then kills itself
 * with SIGKILL at a chosen point, so the point never depends on timing:
 * - `after-complete`: inside `DedupStore.complete()`, once a message
 *   handler ran since arming, the store has recorded the completion and no
 *   other claim of this process is outstanding (held, or asked for) (no handler running, no event prepared ahead). The ack of
 *   that event is batched ~10 ms later, so it never leaves: the service
 *   still holds a delivery that was handled.
 * - `in-handler`: inside the next message handler, before its side effect
 *   (the line in the file): the event must come again and be handled once.
 *
 * Env: AMS_BASE_URL, AMS_AGENT_ID, AMS_AGENT_TOKEN, AMS_KEY_DIR (the same
 * variables as the examples), AMS_TEST_REDIS_URL and AMS_TEST_PREFIX (the
 * Redis store; absent: in-memory), AMS_TEST_HANDLED_FILE (the record),
 * AMS_TEST_CLAIM_LEASE_MS (`claimLeaseMs`), AMS_TEST_COPIES (`copies`: `shared`
 * runs side by side with the agent's other processes, test/chaos/copies.test.ts).
 *
 * The process loads (about 3 s of tsx start-up on a busy machine) and then
 * waits for `{ type: 'go', notBefore }` before it connects, so the parent
 * keeps one loaded on standby and a restart takes milliseconds, and can
 * hold the connection back until a given time (`notBefore`, epoch ms).
 *
 * Lines of the record: `handled <text>\t<epoch ms>\t<delivery id> <pid>`, `duplicate <by>`, `in_flight <key>`;
 * with AMS_DEBUG_COPIES also `claim <key> <status> <ms>`, `complete <key> <ms>` and `log <level> ...`
 * (`in_flight`: a claim found held by someone else).
 * IPC to the parent: `{ type: 'connected' }` on each connection.
 * IPC from the parent: `{ type: 'go', notBefore }`, `{ type: 'arm', kill }`.
 *
 * SIGTERM closes the agent and exits 0; so does the end of the IPC channel.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Agent } from '../../packages/sdk/src/agent/index.js';
import { FileKeyStore } from '../../packages/sdk/src/crypto/index.js';
import { createMemoryDedupStore, type DedupStore } from '../../packages/sdk/src/webhook/index.js';
import { createRedisDedupStore } from '../../packages/sdk/src/webhook/redis.js';

/** Where the process kills itself, when armed. */
export type KillPoint = 'after-complete' | 'in-handler';

/** A message from the parent. */
export type ParentMessage =
  { readonly type: 'go'; readonly notBefore: number } | { readonly type: 'arm'; readonly kill: KillPoint };

function env(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`sigkill-agent: missing ${name}`);
  return value;
}

const agentId = env('AMS_AGENT_ID');
const record = env('AMS_TEST_HANDLED_FILE');
/** AMS_DEBUG_COPIES: the record also gets every claim, completion and warning (to explain a failed run). */
const debug = process.env['AMS_DEBUG_COPIES'] !== undefined;
const now = (): number => performance.timeOrigin + performance.now();
const debugLogger = {
  debug: () => undefined,
  info: (message: string, fields?: unknown) =>
    appendFileSync(record, `log info ${message} ${JSON.stringify(fields ?? {})} ${now()}\n`),
  warn: (message: string, fields?: unknown) =>
    appendFileSync(record, `log warn ${message} ${JSON.stringify(fields ?? {})} ${now()}\n`),
  error: (message: string, fields?: unknown) =>
    appendFileSync(record, `log error ${message} ${JSON.stringify(fields ?? {})} ${now()}\n`),
};

const redisUrl = process.env['AMS_TEST_REDIS_URL'] || undefined;
const redis = redisUrl === undefined ? undefined : new Redis(redisUrl, { maxRetriesPerRequest: 1 });
const inner: DedupStore =
  redis === undefined
    ? createMemoryDedupStore()
    : createRedisDedupStore({
        client: redis,
        keyPrefix: env('AMS_TEST_PREFIX'),
        ...(debug ? { logger: debugLogger } : {}),
      });

let armed: KillPoint | undefined;
let outstanding = 0;
/** A message handler ran since the kill was armed (system events do not count). */
let handledSinceArmed = false;

const die = (): never => {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable: SIGKILL'); // never runs: the signal ends the process first
};

/** The store, counting the claims this process owns; kills itself when armed `after-complete`. */
const store: DedupStore = {
  async claim(key, leaseMs) {
    // Counted from the request on: a claim whose answer is still on its way may already be held in Redis.
    outstanding++;
    const result = await inner.claim(key, leaseMs);
    if (result.status !== 'claimed') outstanding--;
    if (debug) appendFileSync(record, `claim ${key} ${result.status} ${now()}\n`);
    if (result.status === 'in_flight') appendFileSync(record, `in_flight ${key}\n`);
    return result;
  },
  async complete(key, token) {
    if (debug) appendFileSync(record, `complete ${key} ${now()}\n`);
    await inner.complete(key, token);
    outstanding--;
    if (armed === 'after-complete' && handledSinceArmed && outstanding === 0) die();
  },
  async release(key, token) {
    await inner.release(key, token);
    outstanding--;
  },
  // Passed through: without it the Agent cannot keep a claim alive, so an event waiting its turn
  // longer than the 2.5 s test lease lost its claim (the copies chaos test handled such events twice).
  renew: (key, token, leaseMs) => inner.renew!(key, token, leaseMs),
};

const agent = new Agent({
  baseUrl: env('AMS_BASE_URL'),
  agentId,
  token: env('AMS_AGENT_TOKEN'),
  keyStore: new FileKeyStore({ directory: join(env('AMS_KEY_DIR'), agentId) }),
  dedupStore: store,
  claimLeaseMs: Number(process.env['AMS_TEST_CLAIM_LEASE_MS'] ?? 2_500),
  copies: process.env['AMS_TEST_COPIES'] === 'shared' ? 'shared' : 'exclusive',
  // As the chaos harness's agents (test/helpers/chaos.ts, agent-world.ts): fast reconnects and liveness.
  reconnect: { baseMs: 20, capMs: 150, stableAfterMs: 60_000 },
  retry: { baseDelayMs: 20, maxDelayMs: 200 },
  heartbeat: { intervalMs: 250, timeoutMs: 2_000 },
  ...(debug ? { logger: debugLogger } : {}),
});

agent.on('message.new', (m) => {
  if (armed === 'in-handler') die();
  // The time (epoch ms, sub-ms) orders the records of several copies' files (test/chaos/copies.test.ts).
  appendFileSync(record, `handled ${m.text ?? ''}\t${now()}\t${m.deliveryId} ${process.pid}\n`);
  if (armed !== undefined) handledSinceArmed = true;
});
agent.on('duplicate', (info) =>
  appendFileSync(record, `duplicate ${info.by} ${info.deliveryId} ${process.pid}\n`),
);
agent.on('connected', () => process.send?.({ type: 'connected' }));
agent.on('error', (error) => console.error(`sigkill-agent ${process.pid}: ${error.name} ${error.message}`));

let go: (notBefore: number) => void = () => undefined;
const started = new Promise<number>((resolve) => (go = resolve));
process.on('message', (message: ParentMessage) => {
  if (message.type === 'go') go(message.notBefore);
  if (message.type === 'arm') [armed, handledSinceArmed] = [message.kill, false];
});
// The parent is gone (a test runner that died): no orphans.
process.once('disconnect', () => process.exit(0));
process.once('SIGTERM', () => {
  void agent.close({ timeoutMs: 1_000 }).finally(() => {
    redis?.disconnect();
    process.exit(0);
  });
});

const notBefore = await started;
await new Promise((resolve) => setTimeout(resolve, Math.max(0, notBefore - Date.now())));
await agent.connect();
