import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../packages/sdk/src/core/clock.js';
import {
  isRateLimitError,
  isServiceError,
  isTransportError,
} from '../../../../packages/sdk/src/core/errors/guards.js';
import { toErrorCode } from '../../../../packages/sdk/src/core/errors/codes.js';
import { createRefFetcher, type WebhookRef } from '../../../../packages/sdk/src/webhook/index.js';

const BASE = 'https://service.test';
const TOKEN = 'hsk_' + 'A1b2'.repeat(10);
const BYTES = new Uint8Array(Array.from({ length: 300 }, (_, i) => i % 256));
const REF: WebhookRef = {
  type: 'r2',
  object_key: 'agents/a1/obj 1',
  size: BYTES.length,
  content_type: 'application/octet-stream',
};
const PATH = `${BASE}/r2/agents/a1/obj%201`;

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const ok = (): Response =>
  new HttpResponse(BYTES, {
    status: 200,
    headers: { 'content-type': 'application/octet-stream' },
  }) as Response;
const failure = (status: number, code: string, headers: Record<string, string> = {}): Response =>
  HttpResponse.json(
    { error: { code, message: code, i18n_key: code, params: {} } },
    { status, headers },
  ) as Response;

/** Drives a promise to completion, moving the virtual clock while it waits. */
async function drive<T>(promise: Promise<T>, clock: ManualClock): Promise<T> {
  let settled = false;
  const watched = promise.finally(() => {
    settled = true;
  });
  watched.catch(() => undefined);
  for (let i = 0; i < 2000 && !settled; i++) {
    await new Promise((r) => setImmediate(r));
    if (!settled) clock.advance(50);
  }
  return watched;
}

function fetcher(clock: ManualClock, extra: Partial<Parameters<typeof createRefFetcher>[0]> = {}) {
  return createRefFetcher({ baseUrl: BASE + '/', agentToken: TOKEN, clock, timeoutMs: 600_000, ...extra });
}

describe('ref fetcher', () => {
  it('GETs /r2/<object_key> with the bearer token in the header, never in the URL', async () => {
    const seen: { url: string; auth: string | null }[] = [];
    server.use(
      http.get(PATH, ({ request }) => {
        seen.push({ url: request.url, auth: request.headers.get('authorization') });
        return ok();
      }),
    );
    const clock = new ManualClock(0);
    expect(await drive(fetcher(clock)(REF), clock)).toEqual(BYTES);
    expect(seen).toEqual([{ url: PATH, auth: `Bearer ${TOKEN}` }]);
    expect(seen[0]!.url).not.toContain(TOKEN);
  });

  it('waits for Retry-After on 429, then succeeds', async () => {
    const times: number[] = [];
    const clock = new ManualClock(0);
    let n = 0;
    server.use(
      http.get(PATH, () => {
        times.push(clock.now());
        return n++ === 0 ? failure(429, 'RATE_LIMITED', { 'retry-after': '2' }) : ok();
      }),
    );
    expect(await drive(fetcher(clock)(REF), clock)).toEqual(BYTES);
    expect(times).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(2000);
  });

  it('retries 503 twice, then gives up with the service error', async () => {
    let calls = 0;
    server.use(
      http.get(PATH, () => {
        calls++;
        return calls < 3 ? failure(503, 'SERVICE_UNAVAILABLE') : ok();
      }),
    );
    const clock = new ManualClock(0);
    expect(await drive(fetcher(clock)(REF), clock)).toEqual(BYTES);
    expect(calls).toBe(3);
    calls = -10;
    const err = await drive(fetcher(clock)(REF), clock).catch((e: unknown) => e);
    expect(isServiceError(err, toErrorCode('SERVICE_UNAVAILABLE')) && err.status === 503).toBe(true);
    expect(calls).toBe(-7);
  });

  it('fails at once when Retry-After is longer than it may wait, keeping retryAfterMs', async () => {
    let calls = 0;
    server.use(
      http.get(PATH, () => {
        calls++;
        return failure(429, 'RATE_LIMITED', { 'retry-after': '60' });
      }),
    );
    const clock = new ManualClock(0);
    const err = await drive(fetcher(clock)(REF), clock).catch((e: unknown) => e);
    expect(isRateLimitError(err) && err.retryAfterMs === 60_000).toBe(true);
    expect(calls).toBe(1);
  });

  it('does not retry a 404', async () => {
    let calls = 0;
    server.use(
      http.get(PATH, () => {
        calls++;
        return failure(404, 'NOT_FOUND');
      }),
    );
    const clock = new ManualClock(0);
    expect(
      isServiceError(await drive(fetcher(clock)(REF), clock).catch((e: unknown) => e), 'NOT_FOUND'),
    ).toBe(true);
    expect(calls).toBe(1);
  });

  it('retries a network error', async () => {
    let calls = 0;
    server.use(http.get(PATH, () => (calls++ === 0 ? (HttpResponse.error() as Response) : ok())));
    const clock = new ManualClock(0);
    expect(await drive(fetcher(clock)(REF), clock)).toEqual(BYTES);
    expect(calls).toBe(2);
  });

  it.each([
    [
      'a different content type',
      () => new HttpResponse(BYTES, { headers: { 'content-type': 'text/plain' } }),
    ],
    [
      'a shorter body',
      () => new HttpResponse(BYTES.slice(1), { headers: { 'content-type': 'application/octet-stream' } }),
    ],
    [
      'a longer body',
      () =>
        new HttpResponse(new Uint8Array(400), { headers: { 'content-type': 'application/octet-stream' } }),
    ],
  ])('refuses an object with %s before anything decrypts it', async (_n, respond) => {
    server.use(http.get(PATH, () => respond() as Response));
    const clock = new ManualClock(0);
    const err = await drive(fetcher(clock)(REF), clock).catch((e: unknown) => e);
    expect(isTransportError(err) && err.code === 'TRANSPORT_BAD_RESPONSE').toBe(true);
    expect(String((err as Error).message)).not.toContain(TOKEN);
  });

  it('accepts content-type parameters and case differences', async () => {
    server.use(
      http.get(
        PATH,
        () =>
          new HttpResponse(BYTES, {
            headers: { 'content-type': 'Application/Octet-Stream; x=1' },
          }) as Response,
      ),
    );
    const clock = new ManualClock(0);
    expect(await drive(fetcher(clock)(REF), clock)).toEqual(BYTES);
  });

  it('queues beyond 5 requests per second', async () => {
    const times: number[] = [];
    const clock = new ManualClock(0);
    server.use(
      http.get(PATH, () => {
        times.push(clock.now());
        return ok();
      }),
    );
    const f = fetcher(clock);
    await drive(Promise.all(Array.from({ length: 7 }, () => f(REF))), clock);
    expect(times).toHaveLength(7);
    expect(times.slice(0, 5).every((t) => t < 1000)).toBe(true);
    expect(times.slice(5).every((t) => t >= 1000)).toBe(true);
  });

  it('times out an attempt with the clock and retries it', async () => {
    let calls = 0;
    server.use(
      http.get(PATH, async () => {
        calls++;
        if (calls === 1) await new Promise(() => undefined);
        return ok();
      }),
    );
    const clock = new ManualClock(0);
    expect(await drive(fetcher(clock, { timeoutMs: 1000 })(REF), clock)).toEqual(BYTES);
    expect(calls).toBe(2);
  });

  it('refuses bad options without echoing the token', () => {
    expect(() => createRefFetcher({ baseUrl: 'not a url', agentToken: TOKEN })).toThrow(/baseUrl/);
    expect(() => createRefFetcher({ baseUrl: 'ftp://x', agentToken: TOKEN })).toThrow(/baseUrl/);
    let message = '';
    try {
      createRefFetcher({ baseUrl: BASE, agentToken: 'Bearer secret-token-value' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('agentToken');
    expect(message).not.toContain('secret-token-value');
  });
});
