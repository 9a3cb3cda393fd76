import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_RETRY_SCHEDULE_MS } from '../../../../packages/sdk/src/core/limits.js';
import {
  classifyResponse,
  nextRetryDelayMs,
  parseRetryAfter,
  RETRY_AFTER_BOUNDS_MS,
  statusClass,
} from '../../../../packages/dev/src/server/delivery/schedule.js';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');

describe('classifyResponse (the receiver response table)', () => {
  it.each([200, 201, 204])('%i → delivered', (s) => {
    expect(classifyResponse(s, undefined, NOW)).toEqual({ kind: 'delivered', status: s });
  });

  it.each([400, 401, 403, 404, 410, 499])('%i → permanent http_4xx', (s) => {
    expect(classifyResponse(s, undefined, NOW)).toEqual({
      kind: 'permanent',
      errorClass: 'http_4xx',
      status: s,
    });
  });

  it.each([500, 502, 503, 504, 599])('%i → temporary http_5xx', (s) => {
    expect(classifyResponse(s, undefined, NOW)).toMatchObject({ kind: 'temporary', errorClass: 'http_5xx' });
  });

  it('429 with Retry-After → throttled for that long; without one → temporary http_429', () => {
    expect(classifyResponse(429, '12', NOW)).toEqual({ kind: 'throttled', retryAfterMs: 12_000 });
    expect(classifyResponse(429, undefined, NOW)).toMatchObject({
      kind: 'temporary',
      errorClass: 'http_429',
    });
    expect(classifyResponse(429, 'soon', NOW)).toMatchObject({ kind: 'temporary', errorClass: 'http_429' });
  });

  it('statuses outside the table are temporary failures named by class', () => {
    expect(classifyResponse(202, undefined, NOW)).toMatchObject({
      kind: 'temporary',
      errorClass: 'http_2xx',
    });
    expect(classifyResponse(301, undefined, NOW)).toMatchObject({
      kind: 'temporary',
      errorClass: 'http_3xx',
    });
    expect(classifyResponse(101, undefined, NOW)).toMatchObject({
      kind: 'temporary',
      errorClass: 'http_1xx',
    });
  });

  it('every status gets exactly one outcome (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }), fc.option(fc.string(), { nil: undefined }), (s, ra) => {
        const out = classifyResponse(s, ra, NOW);
        if ([200, 201, 204].includes(s)) expect(out.kind).toBe('delivered');
        else if (s === 429) expect(['throttled', 'temporary']).toContain(out.kind);
        else if (s >= 400 && s < 500)
          expect(out).toMatchObject({ kind: 'permanent', errorClass: statusClass(s) });
        else expect(out).toMatchObject({ kind: 'temporary', errorClass: statusClass(s) });
      }),
    );
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds and HTTP dates, clamped to 1 s … 6 h', () => {
    expect(parseRetryAfter('0', NOW)).toBe(RETRY_AFTER_BOUNDS_MS.min);
    expect(parseRetryAfter(' 30 ', NOW)).toBe(30_000);
    expect(parseRetryAfter('99999999', NOW)).toBe(RETRY_AFTER_BOUNDS_MS.max);
    expect(parseRetryAfter(new Date(NOW + 90_000).toUTCString(), NOW)).toBe(90_000);
    expect(parseRetryAfter(new Date(NOW - 90_000).toUTCString(), NOW)).toBe(RETRY_AFTER_BOUNDS_MS.min);
  });

  it.each([
    undefined,
    '',
    '-5',
    '1.5',
    '1e3',
    'soon',
    'Sun, 99 Foo 2026 00:00:00 GMT',
    '0x10',
    '1234567890123',
  ])('refuses %o', (v) => {
    expect(parseRetryAfter(v, NOW)).toBeUndefined();
  });

  it('never throws and stays within bounds for any input (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.nat().map(String),
          fc.date().map((d) => d.toUTCString()),
        ),
        (v) => {
          const ms = parseRetryAfter(v, NOW);
          if (ms !== undefined) {
            expect(ms).toBeGreaterThanOrEqual(RETRY_AFTER_BOUNDS_MS.min);
            expect(ms).toBeLessThanOrEqual(RETRY_AFTER_BOUNDS_MS.max);
          }
        },
      ),
    );
  });

  it('delta-seconds round-trip inside the bounds (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 21_600 }), (s) => {
        expect(parseRetryAfter(String(s), NOW)).toBe(s * 1000);
      }),
    );
  });
});

describe('nextRetryDelayMs (the retry schedule)', () => {
  it('is immediately, 30 s, 2 min, 8 min, 32 min, 2 h, 6 h, then unreachable', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 8].map(nextRetryDelayMs);
    expect(delays).toEqual([0, 30_000, 120_000, 480_000, 1_920_000, 7_200_000, 21_600_000, undefined]);
    expect(delays.slice(0, 7)).toEqual([...WEBHOOK_RETRY_SCHEDULE_MS]);
    expect(nextRetryDelayMs(9)).toBeUndefined();
    expect(nextRetryDelayMs(0)).toBeUndefined();
    expect(nextRetryDelayMs(1.5)).toBeUndefined();
  });
});
