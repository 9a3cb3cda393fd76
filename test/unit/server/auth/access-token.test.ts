import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../packages/sdk/src/core/clock.js';
import { isConfigurationError } from '../../../../packages/sdk/src/core/errors/index.js';
import { createAccessTokenService } from '../../../../packages/dev/src/server/auth/access-token.js';

const subject = { userId: 'u-1', deviceId: 'd-1', sessionId: 's-1' };

describe('access tokens', () => {
  it('are valid for exactly 300 s of the injected clock', async () => {
    const clock = new ManualClock(Date.parse('2026-05-01T00:00:00.000Z'));
    const tokens = createAccessTokenService(clock);
    const signed = await tokens.sign(subject);
    expect(signed.expiresInSeconds).toBe(300);
    expect(signed.expiresAtMs).toBe(clock.now() + 300_000);
    expect(await tokens.verify(signed.token)).toEqual({ ok: true, subject, expiresAtMs: signed.expiresAtMs });
    clock.advance(299_999);
    expect((await tokens.verify(signed.token)).ok).toBe(true);
    clock.advance(1);
    expect(await tokens.verify(signed.token)).toEqual({ ok: false, reason: 'expired' });
  });

  it('are invalid under another key, and for garbage', async () => {
    const clock = new ManualClock();
    const a = createAccessTokenService(clock, new Uint8Array(32).fill(1));
    const b = createAccessTokenService(clock, new Uint8Array(32).fill(2));
    const signed = await a.sign(subject);
    expect(await b.verify(signed.token)).toEqual({ ok: false, reason: 'invalid' });
    expect(await a.verify('a.b.c')).toEqual({ ok: false, reason: 'invalid' });
    expect(await a.verify('')).toEqual({ ok: false, reason: 'invalid' });
  });

  it('need a key of at least 32 bytes', () => {
    try {
      createAccessTokenService(new ManualClock(), new Uint8Array(31));
      expect.unreachable();
    } catch (err) {
      expect(isConfigurationError(err) && err.option).toBe('jwtSecret');
    }
  });
});
