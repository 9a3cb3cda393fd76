import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FRESHNESS_WINDOW,
  freshnessFailure,
  MAX_CLOCK_SKEW_MS,
  MAX_ENVELOPE_AGE_MS,
} from '../../../packages/sdk/src/crypto/freshness.js';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const at = (offsetMs: number) => new Date(NOW + offsetMs).toISOString();
const outcome = (createdAt: string) => {
  const e = freshnessFailure(createdAt, NOW);
  return e === undefined ? 'ok' : [e.code, e.reason, e.message];
};

describe('freshnessFailure (the replay window)', () => {
  it('accepts exactly [now − 24 h 5 min, now + 5 min]', () => {
    expect(DEFAULT_FRESHNESS_WINDOW).toEqual({ maxAgeMs: 86_700_000, maxSkewMs: 300_000 });
    expect(outcome(at(0))).toBe('ok');
    expect(outcome(at(-MAX_ENVELOPE_AGE_MS))).toBe('ok');
    expect(outcome(at(MAX_CLOCK_SKEW_MS))).toBe('ok');
    expect(outcome(at(-MAX_ENVELOPE_AGE_MS - 1))).toEqual([
      'DECRYPT_FAILURE',
      'stale',
      'Envelope could not be opened (stale check failed: created_at is too old)',
    ]);
    expect(outcome(at(MAX_CLOCK_SKEW_MS + 1))).toEqual([
      'DECRYPT_FAILURE',
      'stale',
      'Envelope could not be opened (stale check failed: created_at is too far in the future)',
    ]);
    expect(outcome('not a time')).toEqual([
      'DECRYPT_FAILURE',
      'stale',
      'Envelope could not be opened (stale check failed: created_at is not a time)',
    ]);
  });

  it('takes another window', () => {
    const w = { maxAgeMs: 1000, maxSkewMs: 0 };
    expect(freshnessFailure(at(-1000), NOW, w)).toBeUndefined();
    expect(freshnessFailure(at(-1001), NOW, w)?.reason).toBe('stale');
    expect(freshnessFailure(at(1), NOW, w)?.reason).toBe('stale');
  });
});
