import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  RateLimitError,
  ServiceError,
  TransportError,
  isRateLimitError,
  isServiceError,
  isTransportError,
  parseRetryAfter,
  readHeader,
  toServiceError,
  toErrorCode,
} from '../../../../packages/sdk/src/core/errors/index.js';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');

function body(code: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ error: { code, message: 'm', i18n_key: 'k', params: {}, ...extra } });
}

describe('toServiceError', () => {
  it('builds a ServiceError from a well-formed error object', () => {
    const err = toServiceError({
      status: 403,
      headers: { 'X-Request-Id': 'req-1' },
      body: JSON.stringify({
        error: {
          code: 'RELATION_REVOKED',
          message: 'The user revoked the relation.',
          i18n_key: 'errors.relation_revoked',
          params: { conversation_id: 'c1' },
        },
      }),
    });
    expect(err).toBeInstanceOf(ServiceError);
    expect(isServiceError(err, 'RELATION_REVOKED')).toBe(true);
    expect(err.status).toBe(403);
    expect(err.message).toBe('The user revoked the relation.');
    expect(err.i18nKey).toBe('errors.relation_revoked');
    expect(err.params).toEqual({ conversation_id: 'c1' });
    expect(err.requestId).toBe('req-1');
    expect(err.retryAfterMs).toBeUndefined();
  });

  it('keeps unknown codes as-is', () => {
    const err = toServiceError({ status: 418, body: body('BRAND_NEW_CODE') });
    expect(isServiceError(err, toErrorCode('BRAND_NEW_CODE'))).toBe(true);
    expect(err.code).toBe('BRAND_NEW_CODE');
  });

  it('accepts an already parsed body and UTF-8 bytes', () => {
    const parsed = toServiceError({ status: 404, body: { error: { code: 'NOT_FOUND', message: 'x' } } });
    expect(isServiceError(parsed, 'NOT_FOUND')).toBe(true);
    const bytes = toServiceError({ status: 404, body: new TextEncoder().encode(body('AGENT_NOT_FOUND')) });
    expect(isServiceError(bytes, 'AGENT_NOT_FOUND')).toBe(true);
  });

  it.each([
    ['HTML from a proxy', '<html><body>502 Bad Gateway</body></html>'],
    ['empty body', ''],
    ['truncated JSON', '{"error":{"code":"RATE_'],
    ['JSON without error', '{"data":{}}'],
    ['non-string code', JSON.stringify({ error: { code: 42 } })],
    ['empty code', JSON.stringify({ error: { code: '' } })],
    ['error is an array', JSON.stringify({ error: ['RATE_LIMITED'] })],
    ['null', 'null'],
  ])('turns %s into TransportError TRANSPORT_BAD_RESPONSE with the status', (_name, text) => {
    const err = toServiceError({ status: 502, body: text });
    expect(err).toBeInstanceOf(TransportError);
    expect(isTransportError(err)).toBe(true);
    expect(err.code).toBe('TRANSPORT_BAD_RESPONSE');
    expect(err.status).toBe(502);
  });

  it('makes every 429 a RateLimitError', () => {
    for (const code of ['RATE_LIMITED', 'MESSAGE_RATE_LIMITED', 'GROUP_KEY_ROTATION_LIMIT', 'NEW_LIMIT']) {
      const err = toServiceError({ status: 429, body: body(code) });
      expect(err).toBeInstanceOf(RateLimitError);
      expect(isRateLimitError(err, toErrorCode(code))).toBe(true);
      expect(isServiceError(err, toErrorCode(code))).toBe(true);
    }
    expect(isRateLimitError(toServiceError({ status: 403, body: body('FORBIDDEN') }))).toBe(false);
  });

  it('reads Retry-After in seconds', () => {
    const err = toServiceError(
      { status: 429, headers: { 'retry-after': '7' }, body: body('RATE_LIMITED') },
      NOW,
    );
    expect(err.retryAfterMs).toBe(7000);
  });

  it('reads Retry-After as an HTTP-date relative to now', () => {
    const date = new Date(NOW + 30_000).toUTCString();
    const headers = new Headers({ 'Retry-After': date });
    const err = toServiceError({ status: 503, headers, body: body('SERVICE_BUSY') }, NOW);
    expect(err.retryAfterMs).toBe(30_000);
  });

  it('falls back to params.retry_after_ms, then params.retry_after (seconds)', () => {
    const ms = toServiceError({
      status: 429,
      body: body('RATE_LIMITED', { params: { retry_after_ms: 1234 } }),
    });
    expect(ms.retryAfterMs).toBe(1234);
    const s = toServiceError({ status: 423, body: body('ACCOUNT_LOCKED', { params: { retry_after: 900 } }) });
    expect(s.retryAfterMs).toBe(900_000);
    const header = toServiceError(
      {
        status: 429,
        headers: { 'Retry-After': '2' },
        body: body('RATE_LIMITED', { params: { retry_after_ms: 9 } }),
      },
      NOW,
    );
    expect(header.retryAfterMs).toBe(2000);
  });

  it('keeps Retry-After on a TransportError too', () => {
    const err = toServiceError({ status: 503, headers: { 'retry-after': '3' }, body: 'busy' }, NOW);
    expect(isTransportError(err)).toBe(true);
    expect(err.retryAfterMs).toBe(3000);
  });

  const headerArb = fc.dictionary(
    fc.oneof(fc.constantFrom('retry-after', 'Retry-After', 'x-request-id'), fc.string()),
    fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 })),
  );
  const deep = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      fc.jsonValue(),
      fc.dictionary(fc.string(), tie('node')),
      fc.array(tie('node'), { maxLength: 4 }),
    ),
  })).node;
  const bodyArb = fc.oneof(
    fc.string(),
    fc.string({
      unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
      maxLength: 2000,
    }),
    fc.uint8Array({ maxLength: 512 }),
    fc.anything(),
    deep,
    fc.record({
      error: fc.record(
        {
          code: fc.oneof(
            fc.string(),
            fc.integer(),
            fc.constant(null),
            fc.object(),
            fc.string({ minLength: 500 }),
          ),
          message: fc.anything(),
          i18n_key: fc.anything(),
          params: fc.oneof(
            fc.anything(),
            fc.record({ retry_after_ms: fc.anything(), retry_after: fc.anything() }),
          ),
        },
        { requiredKeys: [] },
      ),
    }),
    deep.map((v) => JSON.stringify(v) ?? ''),
    fc.constant('x'.repeat(200_000)),
  );

  it('never throws, whatever the status, headers and body (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1, max: 1000 }), headerArb, bodyArb, (status, headers, b) => {
        const err = toServiceError({ status, headers, body: b });
        expect(isServiceError(err) || isTransportError(err)).toBe(true);
        expect(err.status).toBe(status);
        expect(typeof err.message).toBe('string');
        if (isServiceError(err)) expect(err.code.length).toBeLessThanOrEqual(100);
        if (err.retryAfterMs !== undefined) expect(Number.isFinite(err.retryAfterMs)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('keeps any non-empty string code (truncated to 100 chars) (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 300 }), (code) => {
        const err = toServiceError({ status: 400, body: body(code) });
        expect(isServiceError(err)).toBe(true);
        expect(err.code).toBe(code.slice(0, 100));
      }),
    );
  });
});

describe('retry hints in params', () => {
  it('ignores a params.retry_after whose value in milliseconds is not finite', () => {
    const huge = toServiceError({
      status: 429,
      body: { error: { code: 'RATE_LIMITED', message: 'x', params: { retry_after: 1.797693134862316e305 } } },
    });
    expect(huge.retryAfterMs).toBeUndefined();
    const fine = toServiceError({
      status: 429,
      body: { error: { code: 'RATE_LIMITED', message: 'x', params: { retry_after: 2 } } },
    });
    expect(fine.retryAfterMs).toBe(2000);
  });
});

describe('parseRetryAfter', () => {
  it('parses delta-seconds, fractional seconds and HTTP-dates; rejects garbage', () => {
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter(' 120 ', NOW)).toBe(120_000);
    expect(parseRetryAfter('1.5', NOW)).toBe(1500);
    expect(parseRetryAfter(new Date(NOW + 5000).toUTCString(), NOW)).toBe(5000);
    expect(parseRetryAfter(new Date(NOW - 5000).toUTCString(), NOW)).toBe(0);
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter('-5', NOW)).toBeUndefined();
    expect(parseRetryAfter('7 s', NOW)).toBeUndefined();
    expect(parseRetryAfter('2026', NOW)).toBe(2_026_000);
  });

  it('never throws and never returns a negative or non-finite number (property)', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const ms = parseRetryAfter(s, NOW);
        if (ms !== undefined) {
          expect(Number.isFinite(ms)).toBe(true);
          expect(ms).toBeGreaterThanOrEqual(0);
        }
      }),
    );
  });
});

describe('readHeader', () => {
  it('reads case-insensitively from Headers and plain objects, first of a list', () => {
    expect(readHeader(new Headers({ 'Retry-After': '1' }), 'retry-after')).toBe('1');
    expect(readHeader({ 'RETRY-AFTER': '2' }, 'retry-after')).toBe('2');
    expect(readHeader({ 'retry-after': ['3', '4'] }, 'Retry-After')).toBe('3');
    expect(readHeader({}, 'retry-after')).toBeUndefined();
    expect(readHeader(undefined, 'retry-after')).toBeUndefined();
  });
});
