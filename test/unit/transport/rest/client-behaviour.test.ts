import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../packages/sdk/src/core/clock.js';
import { isAmsError, isConfigurationError } from '../../../../packages/sdk/src/core/errors/guards.js';
import {
  createRestClient,
  type RestClientOptions,
} from '../../../../packages/sdk/src/transport/rest/index.js';
import {
  errorBody,
  fakeSleep,
  JSON_HEADERS,
  mockService,
  ORIGIN,
  TOKEN,
} from '../../../helpers/transport-rest.js';

let mock = mockService();
afterEach(async () => {
  await mock.agent.close();
  mock = mockService();
});

async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

describe('client-side rate limits', () => {
  it('queues a busy agent at 5 messages per second instead of tripping 429', async () => {
    const clock = new ManualClock(0);
    const sentAt: number[] = [];
    mock.pool
      .intercept({ path: '/agents/a1/messages', method: 'POST' })
      .reply(() => {
        sentAt.push(clock.now());
        return { statusCode: 200, data: { data: {} }, responseOptions: { headers: JSON_HEADERS } };
      })
      .times(12);
    const rest = createRestClient({ baseUrl: ORIGIN, credentials: TOKEN, dispatcher: mock.agent, clock });
    const all = Array.from({ length: 12 }, () =>
      rest.post('/agents/a1/messages', {}, { limiter: 'messages' }),
    );
    await flush();
    expect(sentAt).toHaveLength(5);
    clock.advance(1000);
    await flush();
    expect(sentAt).toHaveLength(10);
    clock.advance(1000);
    await Promise.all(all);
    expect(sentAt).toEqual([0, 0, 0, 0, 0, 1000, 1000, 1000, 1000, 1000, 2000, 2000]);
  });

  it('keeps one limiter per key: objects do not wait behind messages', async () => {
    const clock = new ManualClock(0);
    mock.pool
      .intercept({ path: '/m', method: 'POST' })
      .reply(200, { data: 1 }, { headers: JSON_HEADERS })
      .times(5);
    mock.pool.intercept({ path: '/r2/k', method: 'GET' }).reply(200, 'x').times(1);
    const rest = createRestClient({ baseUrl: ORIGIN, credentials: TOKEN, dispatcher: mock.agent, clock });
    await Promise.all(Array.from({ length: 5 }, () => rest.post('/m', {}, { limiter: 'messages' })));
    await expect(rest.getBytes('/r2/k', { limiter: 'objects' })).resolves.toMatchObject({ size: 1 });
  });

  it('a request aborted while it waits for the limiter rejects at once and is never sent', async () => {
    const clock = new ManualClock(0);
    let sent = 0;
    mock.pool
      .intercept({ path: '/m', method: 'POST' })
      .reply(() => {
        sent += 1;
        return { statusCode: 200, data: { data: 1 }, responseOptions: { headers: JSON_HEADERS } };
      })
      .times(6);
    const rest = createRestClient({ baseUrl: ORIGIN, credentials: TOKEN, dispatcher: mock.agent, clock });
    await Promise.all(Array.from({ length: 5 }, () => rest.post('/m', {}, { limiter: 'messages' })));
    const controller = new AbortController();
    const waiting = rest.post('/m', {}, { limiter: 'messages', signal: controller.signal });
    const reason = new Error('caller gave up');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(sent).toBe(5);
    // The slot was not consumed: the next request goes out as soon as the window allows.
    clock.advance(1000);
    await expect(rest.post('/m', {}, { limiter: 'messages' })).resolves.toBe(1);
    expect(sent).toBe(6);
  });

  it('can be turned off', async () => {
    const clock = new ManualClock(0);
    mock.pool
      .intercept({ path: '/m', method: 'POST' })
      .reply(200, { data: 1 }, { headers: JSON_HEADERS })
      .times(8);
    const rest = createRestClient({
      baseUrl: ORIGIN,
      credentials: TOKEN,
      dispatcher: mock.agent,
      clock,
      rateLimits: false,
    });
    await expect(
      Promise.all(Array.from({ length: 8 }, () => rest.post('/m', {}, { limiter: 'messages' }))),
    ).resolves.toHaveLength(8);
  });
});

describe('options and credentials', () => {
  const base: RestClientOptions = { baseUrl: ORIGIN, credentials: TOKEN };
  it.each([
    [{ baseUrl: 'not a url' }, 'baseUrl'],
    [{ baseUrl: 'ftp://x' }, 'baseUrl'],
    [{ baseUrl: 'https://user:pw@x' }, 'baseUrl'],
    [{ baseUrl: 'https://x/?token=1' }, 'baseUrl'],
    [{ credentials: '' }, 'credentials'],
    [{ retry: { maxAttempts: 0 } }, 'retry.maxAttempts'],
    [{ retry: { baseDelayMs: -1 } }, 'retry.baseDelayMs'],
    [{ timeoutMs: 0 }, 'timeoutMs'],
    [{ rateLimits: { messages: 0 } }, 'rateLimits.messages'],
  ] as const)('refuses %j naming %s', (patch, option) => {
    let err: unknown;
    try {
      createRestClient({ ...base, ...patch } as RestClientOptions);
    } catch (e) {
      err = e;
    }
    expect(isConfigurationError(err)).toBe(true);
    expect((err as { option: string }).option).toBe(option);
  });

  it('refuses a token that could split a header, without quoting it', async () => {
    const rest = createRestClient({
      baseUrl: ORIGIN,
      credentials: () => 'hsk_abc\r\nx-evil: 1',
      dispatcher: mock.agent,
    });
    const err = await rest.get('/x').catch((e: unknown) => e);
    expect(isConfigurationError(err)).toBe(true);
    expect((err as Error).message).not.toContain('hsk_abc');
  });

  it('a request without credentials fails unless auth is false', async () => {
    mock.pool.intercept({ path: '/auth/login', method: 'POST' }).reply((req) => ({
      statusCode: 200,
      data: { data: { auth: (req.headers as Record<string, string>)['authorization'] ?? null } },
      responseOptions: { headers: JSON_HEADERS },
    }));
    const rest = createRestClient({ baseUrl: ORIGIN, dispatcher: mock.agent });
    await expect(rest.get('/x')).rejects.toMatchObject({ code: 'CONFIGURATION_ERROR' });
    await expect(rest.post('/auth/login', { email: 'a@b.c' }, { auth: false })).resolves.toEqual({
      auth: null,
    });
  });

  it('a caller abort rethrows its reason and stops retrying', async () => {
    mock.pool.intercept({ path: '/x', method: 'GET' }).reply(503, errorBody('X'), { headers: JSON_HEADERS });
    const controller = new AbortController();
    const rest = createRestClient({
      baseUrl: ORIGIN,
      credentials: TOKEN,
      dispatcher: mock.agent,
      sleep: (_ms, signal) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason));
          controller.abort(new Error('caller gave up'));
        }),
    });
    await expect(rest.get('/x', { signal: controller.signal })).rejects.toThrow('caller gave up');
  });

  it('error messages and JSON never carry the token', async () => {
    mock.pool.intercept({ path: '/x', method: 'GET' }).reply(
      401,
      {
        error: {
          code: 'UNAUTHORIZED',
          message: `bad token ${TOKEN}`,
          i18n_key: 'x',
          params: { token: TOKEN },
        },
      },
      { headers: JSON_HEADERS },
    );
    const rest = createRestClient({ baseUrl: ORIGIN, credentials: TOKEN, dispatcher: mock.agent });
    const err = await rest.get('/x').catch((e: unknown) => e);
    expect(String((err as Error).message)).not.toContain(TOKEN);
    expect(JSON.stringify(err)).not.toContain(TOKEN);
  });
});

describe('arbitrary answers (property)', () => {
  const body = fc.oneof(
    fc.string(),
    fc.json(),
    fc.jsonValue().map((v) => JSON.stringify({ data: v })),
    fc.jsonValue().map((v) => JSON.stringify({ error: v })),
    fc
      .record({ code: fc.string(), message: fc.string(), params: fc.dictionary(fc.string(), fc.jsonValue()) })
      .map((e) => JSON.stringify({ error: e })),
    fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
  );
  const headers = fc.record(
    {
      'content-type': fc.constantFrom('application/json', 'text/html', 'x'),
      'retry-after': fc.string({ maxLength: 12 }),
    },
    { requiredKeys: [] },
  );

  it('only data or typed SDK errors come out', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 200, max: 599 }),
        body,
        headers,
        fc.boolean(),
        async (status, data, hdrs, post) => {
          const { sleep } = fakeSleep();
          const method = post ? 'POST' : 'GET';
          mock.pool.intercept({ path: '/p', method }).reply(status, data, { headers: hdrs }).times(2);
          const rest = createRestClient({
            baseUrl: ORIGIN,
            credentials: TOKEN,
            dispatcher: mock.agent,
            sleep,
            retry: { maxAttempts: 2 },
          });
          try {
            await rest.request({ method, path: '/p', body: post ? {} : undefined });
            expect(status).toBeGreaterThanOrEqual(200);
            expect(status).toBeLessThan(300);
          } catch (err) {
            expect(isAmsError(err)).toBe(true);
          } finally {
            await mock.agent.close();
            mock = mockService();
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
