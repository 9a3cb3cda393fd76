import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ManualClock } from '../../../../packages/sdk/src/core/clock.js';
import {
  isRateLimitError,
  isServiceError,
  isTimeoutError,
  isTransportError,
  isValidationError,
} from '../../../../packages/sdk/src/core/errors/guards.js';
import { toErrorCode } from '../../../../packages/sdk/src/core/errors/codes.js';
import {
  createRestClient,
  type RateLimitedInfo,
  type RestClientOptions,
  type RetryInfo,
} from '../../../../packages/sdk/src/transport/rest/index.js';
import {
  connectionReset,
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

function client(extra: Partial<RestClientOptions> = {}): {
  rest: ReturnType<typeof createRestClient>;
  waits: number[];
  retries: RetryInfo[];
  limited: RateLimitedInfo[];
} {
  const { sleep, waits } = fakeSleep();
  const rest = createRestClient({
    baseUrl: ORIGIN,
    credentials: TOKEN,
    dispatcher: mock.agent,
    sleep,
    retry: { random: () => 0.5 },
    ...extra,
  });
  const retries: RetryInfo[] = [];
  const limited: RateLimitedInfo[] = [];
  rest.on('retry', (i) => retries.push(i)).on('rateLimited', (i) => limited.push(i));
  return { rest, waits, retries, limited };
}

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe('REST client fault sequences (MockAgent)', () => {
  it('503 then 200: retried once and the data returned', async () => {
    mock.pool
      .intercept({ path: '/agents/a1/delivery-logs?limit=5', method: 'GET' })
      .reply(503, errorBody('SERVICE_UNAVAILABLE'), { headers: JSON_HEADERS });
    mock.pool
      .intercept({ path: '/agents/a1/delivery-logs?limit=5', method: 'GET' })
      .reply(200, { data: [{ n: 1 }] }, { headers: JSON_HEADERS });
    const { rest, retries, waits } = client();
    await expect(rest.get('/agents/a1/delivery-logs', { query: { limit: 5 } })).resolves.toEqual([{ n: 1 }]);
    expect(retries).toEqual([
      {
        request: 'GET /agents/a1/delivery-logs',
        reason: 'unavailable',
        code: 'SERVICE_UNAVAILABLE',
        attempt: 1,
        delayMs: 150,
      },
    ]);
    expect(waits).toEqual([150]);
  });

  it('a 429 storm with Retry-After is absorbed: rateLimited emitted, waits ≥ Retry-After, no error', async () => {
    const path = '/agents/a1/messages';
    mock.pool
      .intercept({ path, method: 'POST' })
      .reply(429, errorBody('MESSAGE_RATE_LIMITED'), { headers: { ...JSON_HEADERS, 'retry-after': '2' } })
      .times(3);
    mock.pool
      .intercept({ path, method: 'POST' })
      .reply(200, { data: { message_id: 'm1' } }, { headers: JSON_HEADERS });
    const { rest, limited, waits } = client();
    await expect(
      rest.post(path, { conversation_id: 'c1', payload: { type: 'text', text: 'hi' } }),
    ).resolves.toEqual({ message_id: 'm1' });
    expect(limited.map((l) => [l.code, l.retryAfterMs, l.attempt])).toEqual([
      ['MESSAGE_RATE_LIMITED', 2000, 1],
      ['MESSAGE_RATE_LIMITED', 2000, 2],
      ['MESSAGE_RATE_LIMITED', 2000, 3],
    ]);
    expect(waits).toEqual([2000, 2000, 2000]);
  });

  it('params.retry_after_ms is honoured as the minimum wait', async () => {
    mock.pool
      .intercept({ path: '/x', method: 'GET' })
      .reply(429, errorBody('RATE_LIMITED', { retry_after_ms: 4321 }), { headers: JSON_HEADERS });
    mock.pool.intercept({ path: '/x', method: 'GET' }).reply(200, { data: 1 }, { headers: JSON_HEADERS });
    const { rest, waits } = client();
    await expect(rest.get('/x')).resolves.toBe(1);
    expect(waits).toEqual([4321]);
  });

  it('429 beyond max attempts surfaces a RateLimitError with retryAfterMs', async () => {
    mock.pool
      .intercept({ path: '/x', method: 'GET' })
      .reply(429, errorBody('RATE_LIMITED', { retry_after_ms: 100 }), { headers: JSON_HEADERS })
      .times(3);
    const { rest, limited, retries } = client({ retry: { maxAttempts: 3, random: () => 0 } });
    const err = await caught(rest.get('/x'));
    expect(isRateLimitError(err, 'RATE_LIMITED')).toBe(true);
    expect((err as { retryAfterMs: number }).retryAfterMs).toBe(100);
    expect(limited).toHaveLength(3);
    expect(retries).toHaveLength(2);
  });

  it('a request with maxAttempts: 1 surfaces its 429 at once (the caller handles the limit)', async () => {
    mock.pool.intercept({ path: '/x', method: 'PUT' }).reply(429, errorBody('MANIFEST_UPDATE_RATE_LIMITED'), {
      headers: { ...JSON_HEADERS, 'retry-after': '1' },
    });
    const { rest, waits, limited } = client();
    const err = await caught(rest.request({ method: 'PUT', path: '/x', body: {}, maxAttempts: 1 }));
    expect(isRateLimitError(err, 'MANIFEST_UPDATE_RATE_LIMITED')).toBe(true);
    expect(waits).toEqual([]);
    expect(limited).toHaveLength(1);
  });

  it('a Retry-After beyond the total wait budget surfaces at once', async () => {
    mock.pool.intercept({ path: '/x', method: 'GET' }).reply(429, errorBody('TOKEN_ROTATION_RATE_LIMITED'), {
      headers: { ...JSON_HEADERS, 'retry-after': '86400' },
    });
    const { rest, waits } = client();
    const err = await caught(rest.get('/x'));
    expect(isRateLimitError(err, 'TOKEN_ROTATION_RATE_LIMITED')).toBe(true);
    expect((err as { retryAfterMs: number }).retryAfterMs).toBe(86_400_000);
    expect(waits).toEqual([]);
  });

  it('a connection reset on GET is retried', async () => {
    mock.pool.intercept({ path: '/x', method: 'GET' }).replyWithError(connectionReset());
    mock.pool.intercept({ path: '/x', method: 'GET' }).reply(200, { data: 'ok' }, { headers: JSON_HEADERS });
    const { rest, retries } = client();
    await expect(rest.get('/x')).resolves.toBe('ok');
    expect(retries.map((r) => [r.reason, r.code])).toEqual([['network', 'TRANSPORT_NETWORK']]);
  });

  it('a connection reset on POST is not retried (it may have reached the service)', async () => {
    mock.pool.intercept({ path: '/agents/a1/messages', method: 'POST' }).replyWithError(connectionReset());
    const { rest, retries } = client();
    const err = await caught(rest.post('/agents/a1/messages', { a: 1 }));
    expect(isTransportError(err) && err.code === 'TRANSPORT_NETWORK').toBe(true);
    expect((err as Error).cause).toBeInstanceOf(Error);
    // The URL it tried (no query, no credential) and where to look.
    expect((err as Error).message).toMatch(
      /^POST https?:\/\/[^ ]+\/agents\/a1\/messages failed: network error/,
    );
    expect((err as Error).message).toContain('Is the service running at');
    expect(retries).toEqual([]);
  });

  it('a POST explicitly marked idempotent is retried after a reset', async () => {
    mock.pool.intercept({ path: '/y', method: 'POST' }).replyWithError(connectionReset());
    mock.pool.intercept({ path: '/y', method: 'POST' }).reply(200, { data: true }, { headers: JSON_HEADERS });
    const { rest } = client();
    await expect(rest.post('/y', {}, { idempotent: true })).resolves.toBe(true);
  });

  it('a non-JSON 502 becomes a TransportError carrying the status, retried then surfaced', async () => {
    mock.pool
      .intercept({ path: '/x', method: 'GET' })
      .reply(502, '<html>Bad Gateway</html>', { headers: { 'content-type': 'text/html' } })
      .times(2);
    const { rest, retries } = client({ retry: { maxAttempts: 2 } });
    const err = await caught(rest.get('/x'));
    expect(isTransportError(err)).toBe(true);
    expect(err).toMatchObject({ code: 'TRANSPORT_BAD_RESPONSE', status: 502 });
    expect(retries).toHaveLength(1);
  });

  it('TOKEN_EXPIRED → refresh hook → retried once with the new token', async () => {
    let token = 'eyJold.aaaa.bbbb';
    const seen: string[] = [];
    mock.pool.intercept({ path: '/users/me/devices', method: 'GET' }).reply((req) => {
      seen.push(String((req.headers as Record<string, string>)['authorization']));
      return {
        statusCode: 401,
        data: errorBody('TOKEN_EXPIRED'),
        responseOptions: { headers: JSON_HEADERS },
      };
    });
    mock.pool.intercept({ path: '/users/me/devices', method: 'GET' }).reply((req) => {
      seen.push(String((req.headers as Record<string, string>)['authorization']));
      return { statusCode: 200, data: { data: [] }, responseOptions: { headers: JSON_HEADERS } };
    });
    let refreshes = 0;
    const { rest, retries } = client({
      credentials: () => token,
      onTokenExpired: () => {
        refreshes++;
        token = 'eyJnew.cccc.dddd';
      },
    });
    await expect(rest.get('/users/me/devices')).resolves.toEqual([]);
    expect(refreshes).toBe(1);
    expect(seen).toEqual(['Bearer eyJold.aaaa.bbbb', 'Bearer eyJnew.cccc.dddd']);
    expect(retries).toEqual([]);
  });

  it('TOKEN_EXPIRED twice: refreshed once, then the error surfaces', async () => {
    mock.pool
      .intercept({ path: '/x', method: 'GET' })
      .reply(401, errorBody('TOKEN_EXPIRED'), { headers: JSON_HEADERS })
      .times(2);
    let refreshes = 0;
    const { rest } = client({ onTokenExpired: () => void refreshes++ });
    const err = await caught(rest.get('/x'));
    expect(isServiceError(err, 'TOKEN_EXPIRED')).toBe(true);
    expect(refreshes).toBe(1);
  });

  it.each(['AGENT_TOKEN_INVALID', 'AGENT_SUSPENDED', 'AGENT_BANNED'])(
    'terminal %s is never retried, even on 503',
    async (code) => {
      mock.pool
        .intercept({ path: '/x', method: 'GET' })
        .reply(503, errorBody(code), { headers: JSON_HEADERS });
      const { rest, retries } = client();
      const err = await caught(rest.get('/x'));
      expect(isServiceError(err, toErrorCode(code))).toBe(true);
      expect(retries).toEqual([]);
    },
  );

  it('other 4xx are not retried', async () => {
    mock.pool
      .intercept({ path: '/x', method: 'GET' })
      .reply(404, errorBody('AGENT_NOT_FOUND'), { headers: JSON_HEADERS });
    const { rest, retries } = client();
    const err = await caught(rest.get('/x'));
    expect(err).toMatchObject({ code: 'AGENT_NOT_FOUND', status: 404 });
    expect(retries).toEqual([]);
  });

  it('a schema mismatch is a ValidationError, not a crash and not retried', async () => {
    mock.pool
      .intercept({ path: '/x', method: 'GET' })
      .reply(200, { data: { pending_count: 'many' } }, { headers: JSON_HEADERS });
    const { rest, retries } = client();
    const err = await caught(rest.get('/x', { schema: z.object({ pending_count: z.int() }) }));
    expect(isValidationError(err)).toBe(true);
    expect(retries).toEqual([]);
  });

  it('a success body without a data member is a TransportError', async () => {
    mock.pool.intercept({ path: '/x', method: 'GET' }).reply(200, { result: 1 }, { headers: JSON_HEADERS });
    const err = await caught(client().rest.get('/x'));
    expect(err).toMatchObject({ code: 'TRANSPORT_BAD_RESPONSE', status: 200 });
  });

  it('204 without a body gives undefined', async () => {
    mock.pool.intercept({ path: '/agents/a1/token', method: 'DELETE' }).reply(204, '');
    await expect(client().rest.delete('/agents/a1/token')).resolves.toBeUndefined();
  });

  it('a per-request timeout on the injected clock gives a TimeoutError', async () => {
    const clock = new ManualClock(0);
    mock.pool
      .intercept({ path: '/slow', method: 'POST' })
      .reply(200, { data: 1 }, { headers: JSON_HEADERS })
      .delay(60_000);
    const { rest } = client({ clock, timeoutMs: 1000 });
    const pending = caught(rest.post('/slow', {}));
    await new Promise((r) => setImmediate(r));
    clock.advance(1000);
    const err = await pending;
    expect(isTimeoutError(err)).toBe(true);
    expect(err).toMatchObject({ timeoutMs: 1000 });
  });

  it('getBytes returns bytes, content type and size', async () => {
    const bytes = new Uint8Array([0, 1, 2, 250, 255]);
    mock.pool.intercept({ path: '/r2/obj%201/part', method: 'GET' }).reply(200, Buffer.from(bytes), {
      headers: { 'content-type': 'application/octet-stream' },
    });
    const { rest } = client();
    const res = await rest.getBytes('/r2/obj%201/part', { limiter: 'objects' });
    expect(res).toMatchObject({ contentType: 'application/octet-stream', size: 5, status: 200 });
    expect([...res.bytes]).toEqual([...bytes]);
  });

  it('a base path prefix is kept and the token never leaves the base origin', async () => {
    mock.pool
      .intercept({ path: '/api/v1/x', method: 'GET' })
      .reply(200, { data: 2 }, { headers: JSON_HEADERS });
    const { rest } = client({ baseUrl: `${ORIGIN}/api/v1/` });
    await expect(rest.get('/x')).resolves.toBe(2);
    await expect(rest.get('//evil.example/x')).rejects.toMatchObject({ code: 'CONFIGURATION_ERROR' });
    await expect(rest.get('https://evil.example/x')).rejects.toMatchObject({ code: 'CONFIGURATION_ERROR' });
  });

  it('a throwing event listener does not fail the request', async () => {
    mock.pool.intercept({ path: '/x', method: 'GET' }).reply(503, errorBody('X'), { headers: JSON_HEADERS });
    mock.pool.intercept({ path: '/x', method: 'GET' }).reply(200, { data: 3 }, { headers: JSON_HEADERS });
    const { rest } = client();
    rest.on('retry', () => {
      throw new Error('listener bug');
    });
    await expect(rest.get('/x')).resolves.toBe(3);
  });

  it('an answer without the service error object names the URL and asks whether baseUrl is right', async () => {
    mock.pool.intercept({ path: '/agents/a1?x=1', method: 'GET' }).reply(404, 'Not Found');
    const { rest } = client();
    const err = await caught(rest.get('/agents/a1', { query: { x: 1 } }));
    expect(isTransportError(err) && err.code === 'TRANSPORT_BAD_RESPONSE').toBe(true);
    expect((err as Error).message).toMatch(/^GET https?:\/\/[^ ?]+\/agents\/a1 answered HTTP 404 without/);
    expect((err as Error).message).toContain('is baseUrl the address of the messaging service');
  });
});
