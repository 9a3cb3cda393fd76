/**
 * Renewing the access token at 80 % of its lifetime on the injected clock:
 * once per token, re-armed by every new token, not after stop(), and a
 * failed refresh is logged (the server's 4003 then leads to a reconnect).
 */
import { describe, expect, it } from 'vitest';
import {
  RENEW_AT_FRACTION,
  TokenRenewal,
  type RenewableSession,
} from '../../../packages/sdk/src/client/token-renewal.js';
import { ManualClock } from '../../../packages/sdk/src/core/clock.js';
import { recordingLogger } from '../../helpers/client-setup.js';

const LIFETIME_MS = 300_000;

function setup(fail = false) {
  const clock = new ManualClock(Date.parse('2026-03-01T12:00:00.000Z'));
  let window = { issuedAtMs: clock.now(), expiresAtMs: clock.now() + LIFETIME_MS };
  let refreshes = 0;
  const session: RenewableSession = {
    tokenWindow: () => window,
    refresh: async () => {
      refreshes += 1;
      if (fail) throw new Error('refresh refused');
      window = { issuedAtMs: clock.now(), expiresAtMs: clock.now() + LIFETIME_MS };
      renewal.tokenChanged(); // what the session's token listener does
    },
  };
  const log = recordingLogger();
  const renewal = new TokenRenewal(session, clock, log);
  return { clock, renewal, log, refreshes: () => refreshes };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('TokenRenewal', () => {
  it('refreshes at 80 % of the lifetime, then again 80 % into the new token', async () => {
    expect(RENEW_AT_FRACTION).toBe(0.8);
    const s = setup();
    s.renewal.arm();
    s.clock.advance(239_999);
    expect(s.refreshes()).toBe(0);
    s.clock.advance(1);
    await flush();
    expect(s.refreshes()).toBe(1);
    s.clock.advance(239_999);
    expect(s.refreshes()).toBe(1);
    s.clock.advance(1);
    await flush();
    expect(s.refreshes()).toBe(2);
    s.renewal.stop();
    s.clock.advance(LIFETIME_MS);
    expect(s.refreshes()).toBe(2);
    expect(s.renewal.armed).toBe(false);
  });

  it('a new token after stop() does not re-arm', () => {
    const s = setup();
    s.renewal.arm();
    s.renewal.stop();
    s.renewal.tokenChanged();
    expect(s.renewal.armed).toBe(false);
  });

  it('logs a failed refresh without the error text', async () => {
    const s = setup(true);
    s.renewal.arm();
    s.clock.advance(240_000);
    await flush();
    expect(s.refreshes()).toBe(1);
    expect(s.log.lines.map((l) => [l.level, l.message])).toEqual([
      ['warn', 'renewing the access token before expiry failed'],
    ]);
    expect(s.log.text()).not.toContain('refused');
  });
});
