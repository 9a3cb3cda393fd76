import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  clearedRefreshCookie,
  readCookie,
  refreshCookie,
} from '../../../../packages/dev/src/server/http/cookies.js';

describe('refresh cookie', () => {
  it('has exactly the attributes of the service interface', () => {
    expect(refreshCookie('abc_-123')).toBe(
      'refresh_token=abc_-123; HttpOnly; Secure; SameSite=Strict; Path=/auth; Max-Age=2592000',
    );
    expect(clearedRefreshCookie()).toBe(
      'refresh_token=; HttpOnly; Secure; SameSite=Strict; Path=/auth; Max-Age=0',
    );
  });
});

describe('readCookie', () => {
  const name = fc.stringMatching(/^[A-Za-z0-9_]{1,12}$/);
  const value = fc.stringMatching(/^[A-Za-z0-9_-]{0,20}$/);

  it('finds the first occurrence among others (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(name, value), { maxLength: 6 }), value, (others, wanted) => {
        const list = others.filter(([n]) => n !== 'refresh_token');
        const header = [
          ...list.map(([n, v]) => `${n}=${v}`),
          `refresh_token=${wanted}`,
          'refresh_token=later',
        ].join('; ');
        expect(readCookie(header, 'refresh_token')).toBe(wanted);
      }),
    );
  });

  it('is undefined without the header or the cookie, and never throws (fast-check)', () => {
    expect(readCookie(undefined, 'refresh_token')).toBeUndefined();
    expect(readCookie('a=b; c', 'refresh_token')).toBeUndefined();
    fc.assert(fc.property(fc.string(), (header) => void readCookie(header, 'refresh_token')));
  });
});
