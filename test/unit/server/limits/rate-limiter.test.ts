import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../packages/sdk/src/core/clock.js';
import { isServerFailure } from '../../../../packages/dev/src/server/http/failure.js';
import {
  RATE_LIMIT_RULES,
  RateLimiter,
  RateLimits,
} from '../../../../packages/dev/src/server/limits/rate-limiter.js';

const rule = { limit: 5, windowMs: 1_000, code: 'MESSAGE_RATE_LIMITED', what: 'messages' } as const;

describe('RateLimiter (sliding window on the clock)', () => {
  it('accepts 5 in a window, refuses the 6th with the exact wait, accepts again after it', () => {
    const clock = new ManualClock(0);
    const limiter = new RateLimiter(rule, clock);
    for (let i = 0; i < 5; i++) {
      expect(limiter.take('a')).toEqual({ ok: true });
      clock.advance(100);
    }
    expect(limiter.take('a')).toEqual({ ok: false, retryAfterMs: 500 });
    expect(limiter.take('b')).toEqual({ ok: true });
    clock.advance(499);
    expect(limiter.take('a').ok).toBe(false);
    clock.advance(1);
    expect(limiter.take('a')).toEqual({ ok: true });
  });

  it('property: never more than `limit` accepted in any window', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 700 }), { minLength: 1, maxLength: 60 }), (gaps) => {
        const clock = new ManualClock(1_000_000);
        const limiter = new RateLimiter(rule, clock);
        const accepted: number[] = [];
        for (const gap of gaps) {
          clock.advance(gap);
          const d = limiter.take('k');
          if (d.ok) accepted.push(clock.now());
          else {
            expect(d.retryAfterMs).toBeGreaterThan(0);
            expect(d.retryAfterMs).toBeLessThanOrEqual(rule.windowMs);
          }
          const inWindow = accepted.filter((t) => t > clock.now() - rule.windowMs);
          expect(inWindow.length).toBeLessThanOrEqual(rule.limit);
        }
      }),
    );
  });

  it('waiting exactly retryAfterMs is enough', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 6, maxLength: 30 }), (gaps) => {
        const clock = new ManualClock(0);
        const limiter = new RateLimiter(rule, clock);
        for (const gap of gaps) {
          clock.advance(gap);
          const d = limiter.take('k');
          if (!d.ok) {
            clock.advance(d.retryAfterMs);
            expect(limiter.take('k').ok).toBe(true);
          }
        }
      }),
    );
  });
});

describe('RateLimits.enforce', () => {
  it('throws a 429 ServerFailure with Retry-After (seconds, rounded up) and params.retry_after_ms', () => {
    const clock = new ManualClock(0);
    const limits = new RateLimits(clock);
    for (let i = 0; i < 5; i++) limits.enforce('objects', 'agent');
    clock.advance(250);
    let caught: unknown;
    try {
      limits.enforce('objects', 'agent');
    } catch (err) {
      caught = err;
    }
    expect(isServerFailure(caught)).toBe(true);
    const failure = caught as { code: string; status: number; params: object; headers: object };
    expect(failure.code).toBe('RATE_LIMITED');
    expect(failure.status).toBe(429);
    expect(failure.params).toMatchObject({ retry_after_ms: 750, retry_after: 1 });
    expect(failure.headers).toEqual({ 'retry-after': '1' });
    expect(limits.used('objects', 'agent')).toBe(5);
  });

  it('has the three limits of the service with their codes', () => {
    expect(RATE_LIMIT_RULES.messages).toMatchObject({
      limit: 5,
      windowMs: 1_000,
      code: 'MESSAGE_RATE_LIMITED',
    });
    expect(RATE_LIMIT_RULES.objects).toMatchObject({ limit: 5, windowMs: 1_000, code: 'RATE_LIMITED' });
    expect(RATE_LIMIT_RULES.tokenRotation).toMatchObject({
      limit: 5,
      windowMs: 86_400_000,
      code: 'TOKEN_ROTATION_RATE_LIMITED',
    });
  });
});
