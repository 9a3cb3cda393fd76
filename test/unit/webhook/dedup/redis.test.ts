import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../packages/sdk/src/core/clock.js';
import { isTimeoutError } from '../../../../packages/sdk/src/core/errors/guards.js';
import { TimeoutError } from '../../../../packages/sdk/src/core/errors/timeout-error.js';
import {
  createRedisDedupStore,
  DEFAULT_REDIS_OPERATION_TIMEOUT_MS,
  type RedisClientLike,
} from '../../../../packages/sdk/src/webhook/redis.js';

/** One command the fake client received, answered when the test says so. */
interface Call {
  readonly command: 'set' | 'get' | 'eval';
  readonly args: readonly (string | number)[];
  answer(value: unknown): void;
  fail(error: Error): void;
}

/** A client whose commands wait until the test answers them: Redis unreachable until then. */
function hangingClient(): { client: RedisClientLike; calls: Call[] } {
  const calls: Call[] = [];
  const record =
    (command: Call['command']) =>
    (...args: (string | number)[]): Promise<never> =>
      new Promise((resolve, reject) => {
        calls.push({ command, args, answer: resolve as (v: unknown) => void, fail: reject });
      });
  const client = {
    set: record('set'),
    get: record('get'),
    eval: record('eval'),
  } as unknown as RedisClientLike;
  return { client, calls };
}

/** Lets promise callbacks run. */
const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

async function outcome<T>(p: T | Promise<T>): Promise<{ value: T } | { error: unknown } | 'pending'> {
  let result: { value: T } | { error: unknown } | 'pending' = 'pending';
  Promise.resolve(p).then(
    (value) => (result = { value }),
    (error: unknown) => (result = { error }),
  );
  await flush();
  return result;
}

describe('Redis dedup store: its own time limit (issue #18)', () => {
  it('defaults to 1 s', () => {
    expect(DEFAULT_REDIS_OPERATION_TIMEOUT_MS).toBe(1000);
  });

  it.each(['claim', 'complete', 'release'] as const)(
    'rejects %s with a TimeoutError when Redis does not answer within the limit',
    async (operation) => {
      const clock = new ManualClock(0);
      const { client } = hangingClient();
      const store = createRedisDedupStore({ client, clock, operationTimeoutMs: 1000 });
      const pending: Promise<unknown> =
        operation === 'claim'
          ? Promise.resolve(store.claim('d1', 60_000))
          : Promise.resolve(store[operation]('d1', 'token'));
      clock.advance(999);
      expect(await outcome(pending)).toBe('pending');
      clock.advance(1);
      const result = await outcome(pending);
      expect(result).toEqual({ error: expect.any(TimeoutError) });
      const error = (result as { error: TimeoutError }).error;
      expect(isTimeoutError(error)).toBe(true);
      expect(error.code).toBe('TIMEOUT');
      expect(error.timeoutMs).toBe(1000);
      expect(error.message).toBe(
        `The Redis de-duplication store's ${operation} did not finish within 1000 ms.`,
      );
    },
  );

  it('leaves no timer behind when Redis answers in time', async () => {
    const clock = new ManualClock(0);
    const { client, calls } = hangingClient();
    // Without the recovery, whose check of the generation runs while the process holds marks (redis-recovery.test.ts).
    const store = createRedisDedupStore({ client, clock, keyPrefix: 'p:', recovery: false });
    const pending = store.claim('d1', 60_000);
    await flush();
    calls[0]!.answer('OK');
    expect(await outcome(pending)).toEqual({ value: { status: 'claimed', token: calls[0]!.args[1] } });
    expect(clock.pendingTimers).toBe(0);
  });

  it('releases a claim whose SET lands after the time limit, with its own token', async () => {
    const clock = new ManualClock(0);
    const { client, calls } = hangingClient();
    const store = createRedisDedupStore({ client, clock, keyPrefix: 'p:' });
    const pending = store.claim('d1', 60_000);
    await flush();
    clock.advance(DEFAULT_REDIS_OPERATION_TIMEOUT_MS);
    expect(await outcome(pending)).toEqual({ error: expect.any(TimeoutError) });
    const set = calls[0]!;
    expect(set.command).toBe('set');
    expect(set.args).toEqual(['p:d1', set.args[1], 'PX', 60_000, 'NX']);
    set.answer('OK'); // Redis is back and ran the queued SET
    await flush();
    expect(calls).toHaveLength(2);
    expect(calls[1]!.command).toBe('eval');
    expect(calls[1]!.args.slice(1)).toEqual([1, 'p:d1', set.args[1]]);
    calls[1]!.fail(new Error('Redis went away again')); // swallowed: the lease bounds the claim
    await flush();
  });

  it('does not release when the late SET did not claim', async () => {
    const clock = new ManualClock(0);
    const { client, calls } = hangingClient();
    const store = createRedisDedupStore({ client, clock });
    const pending = store.claim('d1', 60_000);
    await flush();
    clock.advance(DEFAULT_REDIS_OPERATION_TIMEOUT_MS);
    await outcome(pending);
    calls[0]!.answer(null);
    await flush();
    calls[1]!.answer('done');
    await flush();
    expect(calls.map((c) => c.command)).toEqual(['set', 'get']);
  });

  it('swallows a late failure of a timed-out operation (no unhandled rejection)', async () => {
    const clock = new ManualClock(0);
    const { client, calls } = hangingClient();
    const store = createRedisDedupStore({ client, clock });
    const pending = Promise.resolve(store.complete('d1', 't'));
    await flush();
    clock.advance(DEFAULT_REDIS_OPERATION_TIMEOUT_MS);
    expect(await outcome(pending)).toEqual({ error: expect.any(TimeoutError) });
    calls[0]!.fail(new Error('MaxRetriesPerRequestError'));
    await flush();
  });

  it('passes a client failure within the limit through as it is', async () => {
    const clock = new ManualClock(0);
    const { client, calls } = hangingClient();
    const store = createRedisDedupStore({ client, clock });
    const pending = store.claim('d1', 60_000);
    await flush();
    const failure = new Error("Stream isn't writeable and enableOfflineQueue options is false");
    calls[0]!.fail(failure);
    expect(await outcome(pending)).toEqual({ error: failure });
    expect(clock.pendingTimers).toBe(0);
  });

  it('bounds the lease by the window, so a stale claim always lapses', async () => {
    const { client, calls } = hangingClient();
    // Without the recovery: its check of the generation would wait on this client, which never answers it.
    const store = createRedisDedupStore({ client, windowMs: 5000, recovery: false });
    const claims = [
      store.claim('a', Number.POSITIVE_INFINITY),
      store.claim('b', Number.NaN),
      store.claim('c', 0.2),
      store.claim('d', 1234.5),
    ];
    await flush();
    expect(calls.map((c) => c.args[3])).toEqual([5000, 5000, 1, 1235]);
    for (const c of calls) c.answer('OK');
    expect((await Promise.all(claims)).map((r) => r.status)).toEqual([
      'claimed',
      'claimed',
      'claimed',
      'claimed',
    ]);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses operationTimeoutMs %s', (operationTimeoutMs) => {
    const { client } = hangingClient();
    expect(() => createRedisDedupStore({ client, operationTimeoutMs })).toThrow(
      'Option "operationTimeoutMs" must be a positive integer.',
    );
  });
});
