/**
 * The refresh cookie jar: Set-Cookie parsing (property-tested), expiry on
 * the injected clock, Path matching, and the Secure rule (loopback and
 * listed origins only over plain http).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isLoopbackHost,
  parseRefreshSetCookie,
  RefreshCookieJar,
} from '../../../packages/sdk/src/client/cookie-jar.js';
import { ManualClock } from '../../../packages/sdk/src/core/clock.js';
import { isConfigurationError } from '../../../packages/sdk/src/core/errors/index.js';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const SERVICE = 'refresh_token=abc_DEF-123; HttpOnly; Secure; SameSite=Strict; Path=/auth; Max-Age=2592000';

function jar(base: string, insecureCookieOrigins: string[] = []) {
  const clock = new ManualClock(T0);
  return { clock, jar: new RefreshCookieJar({ baseUrl: new URL(base), clock, insecureCookieOrigins }) };
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('parseRefreshSetCookie', () => {
  it('reads the service cookie', () => {
    expect(parseRefreshSetCookie(SERVICE, T0)).toEqual({
      value: 'abc_DEF-123',
      path: '/auth',
      secure: true,
      expiresAtMs: T0 + 2_592_000_000,
    });
  });

  it('treats Max-Age=0 and an empty value as "forget it", ignores other cookies', () => {
    expect(parseRefreshSetCookie('refresh_token=; Path=/auth; Max-Age=0', T0)).toBe('clear');
    expect(parseRefreshSetCookie('refresh_token=x; Max-Age=0', T0)).toBe('clear');
    expect(parseRefreshSetCookie('session=x; Path=/', T0)).toBeUndefined();
  });

  it('never throws and only ever keeps a header-safe value (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.string({ maxLength: 100 }), (value, attrs) => {
        const parsed = parseRefreshSetCookie(`refresh_token=${value};${attrs}`, T0);
        if (typeof parsed === 'object') {
          expect(parsed.value).toMatch(/^[\x21-\x7e]+$/);
          expect(parsed.value).not.toMatch(/[;,"\\]/);
        }
      }),
    );
  });

  it('round-trips every cookie-safe value with Max-Age (property)', () => {
    const safe = fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/);
    fc.assert(
      fc.property(safe, fc.integer({ min: 1, max: 10_000_000 }), (value, maxAge) => {
        const parsed = parseRefreshSetCookie(`refresh_token=${value}; Path=/auth; Max-Age=${maxAge}`, T0);
        expect(parsed).toEqual({ value, path: '/auth', secure: false, expiresAtMs: T0 + maxAge * 1000 });
      }),
    );
  });
});

describe('RefreshCookieJar', () => {
  it('sends the cookie to /auth paths only, until it expires', () => {
    const { jar: j, clock } = jar('http://127.0.0.1:4000');
    j.store([SERVICE, 'other=1']);
    expect(j.header('/auth/refresh')).toBe('refresh_token=abc_DEF-123');
    expect(j.header('/keys/backup')).toBeUndefined();
    expect(j.header('/authx')).toBeUndefined();
    clock.advance(2_592_000_000);
    expect(j.present).toBe(false);
    expect(j.header('/auth/refresh')).toBeUndefined();
  });

  it('forgets the cookie when the service clears it', () => {
    const { jar: j } = jar('https://api.example.com');
    j.store(SERVICE);
    j.store('refresh_token=; HttpOnly; Secure; SameSite=Strict; Path=/auth; Max-Age=0');
    expect(j.present).toBe(false);
  });

  it('refuses to send a Secure cookie over plain http to a host that is not loopback or listed', () => {
    const plain = jar('http://dev-box:8080');
    plain.jar.store(SERVICE);
    expect(isConfigurationError(thrown(() => plain.jar.header('/auth/refresh')))).toBe(true);
    const listed = jar('http://dev-box:8080', ['http://dev-box:8080']);
    listed.jar.store(SERVICE);
    expect(listed.jar.header('/auth/refresh')).toBe('refresh_token=abc_DEF-123');
    const tls = jar('https://dev-box');
    tls.jar.store(SERVICE);
    expect(tls.jar.header('/auth/refresh')).toBe('refresh_token=abc_DEF-123');
  });

  it('never shows the value in JSON', () => {
    const { jar: j } = jar('https://api.example.com');
    j.store(SERVICE);
    expect(JSON.stringify(j)).toBe('{"present":true}');
  });

  it('knows loopback hosts', () => {
    for (const h of ['localhost', 'app.localhost', '127.0.0.1', '127.1.2.3', '[::1]', '::1'])
      expect(isLoopbackHost(h)).toBe(true);
    for (const h of ['example.com', '10.0.0.1', '128.0.0.1', 'localhost.example.com'])
      expect(isLoopbackHost(h)).toBe(false);
  });
});
