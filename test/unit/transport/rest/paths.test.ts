import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isConfigurationError, isValidationError } from '../../../../packages/sdk/src/core/errors/guards.js';
import { objectKeyPath, pathSegment } from '../../../../packages/sdk/src/transport/rest/index.js';
import { targetOf } from '../../../../packages/sdk/src/transport/rest/paths.js';

const base = new URL('https://api.test/prefix/');

describe('targetOf', () => {
  it('joins the base path, the path and the query', () => {
    expect(targetOf(base, '/agents/a1/delivery-logs', { limit: 10, skip: undefined, flag: true })).toEqual({
      origin: 'https://api.test',
      path: '/prefix/agents/a1/delivery-logs?limit=10&flag=true',
    });
    expect(targetOf(new URL('http://127.0.0.1:8080'), '/x')).toEqual({
      origin: 'http://127.0.0.1:8080',
      path: '/x',
    });
  });

  it('never lets a path leave the base origin (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (path) => {
        try {
          const t = targetOf(base, path);
          expect(t.origin).toBe('https://api.test');
          expect(new URL(t.path, 'https://api.test').origin).toBe('https://api.test');
          expect(t.path.startsWith('/prefix/')).toBe(true);
        } catch (err) {
          expect(isConfigurationError(err)).toBe(true);
        }
      }),
    );
  });

  it('refuses relative, protocol-relative and absolute paths, queries and fragments', () => {
    for (const p of ['x', '//evil/x', 'https://evil/x', '/x?token=1', '/x#f', '/a b', '/a\\b']) {
      expect(() => targetOf(base, p)).toThrow(/request path/);
    }
  });
});

describe('objectKeyPath', () => {
  it('encodes each key segment', () => {
    expect(objectKeyPath('objects/big+one')).toBe('/r2/objects/big%2Bone');
    expect(objectKeyPath('a/b%c')).toBe('/r2/a/b%25c');
    expect(pathSegment('a/b')).toBe('a%2Fb');
  });

  it('rejects keys that could steer the request', () => {
    for (const key of ['', '/abs', 'a/../b', 'a/./b', 'a//b', 'a?b', 'a#b', 'a\\b', 'a\nb']) {
      let err: unknown;
      try {
        objectKeyPath(key);
      } catch (e) {
        err = e;
      }
      expect(isValidationError(err)).toBe(true);
    }
  });
});
