import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RateLimitError } from '../../../../packages/sdk/src/core/errors/rate-limit-error.js';
import { ServiceError } from '../../../../packages/sdk/src/core/errors/service-error.js';
import { toErrorCode } from '../../../../packages/sdk/src/core/errors/codes.js';
import { TimeoutError } from '../../../../packages/sdk/src/core/errors/timeout-error.js';
import { TransportError } from '../../../../packages/sdk/src/core/errors/transport-error.js';
import { ValidationError } from '../../../../packages/sdk/src/core/errors/validation-error.js';
import {
  fullJitterDelay,
  isIdempotentMethod,
  retryReasonOf,
} from '../../../../packages/sdk/src/transport/rest/index.js';
import { retryDelayFor } from '../../../../packages/sdk/src/transport/rest/retry.js';

const service = (code: string, status: number): ServiceError =>
  new ServiceError({ code: toErrorCode(code), status, message: code });
const network = new TransportError({ code: 'TRANSPORT_NETWORK', message: 'reset' });
const timeout = new TimeoutError({ message: 'slow', timeoutMs: 5 });

describe('retryReasonOf', () => {
  it('classifies failures', () => {
    expect(
      retryReasonOf(new RateLimitError({ code: 'RATE_LIMITED', status: 429, message: 'x' }), false),
    ).toBe('rate_limited');
    expect(retryReasonOf(service('SOMETHING', 503), false)).toBe('unavailable');
    expect(retryReasonOf(service('SOMETHING', 502), false)).toBe('unavailable');
    expect(retryReasonOf(service('SOMETHING', 504), true)).toBe('unavailable');
    expect(
      retryReasonOf(new TransportError({ code: 'TRANSPORT_BAD_RESPONSE', status: 502, message: 'x' }), false),
    ).toBe('unavailable');
    expect(
      retryReasonOf(new TransportError({ code: 'TRANSPORT_BAD_RESPONSE', status: 429, message: 'x' }), false),
    ).toBe('rate_limited');
    expect(retryReasonOf(network, true)).toBe('network');
    expect(retryReasonOf(network, false)).toBeUndefined();
    expect(retryReasonOf(timeout, true)).toBe('timeout');
    expect(retryReasonOf(timeout, false)).toBeUndefined();
  });

  it('never retries terminal codes, other 4xx, 500, validation or foreign errors', () => {
    for (const code of ['AGENT_TOKEN_INVALID', 'AGENT_SUSPENDED', 'AGENT_BANNED']) {
      expect(retryReasonOf(service(code, 503), true)).toBeUndefined();
      expect(retryReasonOf(service(code, 429), true)).toBeUndefined();
    }
    for (const status of [400, 401, 403, 404, 409, 413, 423, 500]) {
      expect(retryReasonOf(service('X', status), true)).toBeUndefined();
    }
    expect(retryReasonOf(new ValidationError({ message: 'bad' }), true)).toBeUndefined();
    expect(retryReasonOf(new Error('plain'), true)).toBeUndefined();
  });
});

describe('fullJitterDelay', () => {
  it('stays within [0, min(cap, base·2^(n-1))] for any random value', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.oneof(
          fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
          fc.constant(Number.NaN),
          fc.double(),
        ),
        (retry, base, cap, r) => {
          const d = fullJitterDelay(retry, base, cap, () => r);
          expect(Number.isInteger(d)).toBe(true);
          expect(d).toBeGreaterThanOrEqual(0);
          expect(d).toBeLessThanOrEqual(Math.min(cap, base * 2 ** (retry - 1)));
        },
      ),
    );
  });

  it('grows exponentially until the cap', () => {
    const max = (n: number): number => fullJitterDelay(n, 100, 1000, () => 0.999999);
    expect([1, 2, 3, 4, 5, 6].map(max)).toEqual([99, 199, 399, 799, 999, 999]);
  });
});

describe('retryDelayFor', () => {
  it('raises the jitter to retryAfterMs, never lowers it', () => {
    const policy = { baseDelayMs: 1000, maxDelayMs: 1000, random: () => 0.5 };
    const limited = new RateLimitError({
      code: 'RATE_LIMITED',
      status: 429,
      message: 'x',
      retryAfterMs: 3000,
    });
    expect(retryDelayFor(limited, 1, policy)).toBe(3000);
    const small = new RateLimitError({ code: 'RATE_LIMITED', status: 429, message: 'x', retryAfterMs: 10 });
    expect(retryDelayFor(small, 1, policy)).toBe(500);
    expect(retryDelayFor(service('X', 503), 1, policy)).toBe(500);
  });
});

describe('isIdempotentMethod', () => {
  it('knows the RFC 9110 idempotent methods', () => {
    expect(['GET', 'HEAD', 'PUT', 'DELETE', 'get'].map(isIdempotentMethod)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['POST', 'PATCH'].map(isIdempotentMethod)).toEqual([false, false]);
  });
});

describe('clockSleep', () => {
  it('on the system clock, a wait keeps the process alive (a ref’d timer) and can be aborted', async () => {
    const { clockSleep } = await import('../../../../packages/sdk/src/transport/rest/index.js');
    const { systemClock } = await import('../../../../packages/sdk/src/core/clock.js');
    const timeouts = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timeouts();
    const controller = new AbortController();
    const waiting = clockSleep(systemClock)(60_000, controller.signal);
    expect(timeouts()).toBe(before + 1);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    expect(timeouts()).toBe(before);
  });

  it('on a manual clock, it waits for virtual time', async () => {
    const { clockSleep } = await import('../../../../packages/sdk/src/transport/rest/index.js');
    const { ManualClock } = await import('../../../../packages/sdk/src/core/clock.js');
    const clock = new ManualClock(0);
    let done = false;
    const waiting = clockSleep(clock)(500).then(() => (done = true));
    clock.advance(499);
    await Promise.resolve();
    expect(done).toBe(false);
    clock.advance(1);
    await waiting;
    expect(done).toBe(true);
  });
});
