import { describe, expect, it } from 'vitest';
import { isLoopbackUrl } from '../../../packages/dev/src/cli/loopback.js';

describe('isLoopbackUrl', () => {
  it.each([
    ['http://127.0.0.1:3000/hook', true],
    ['http://127.255.0.9/', true],
    ['http://localhost:8080/', true],
    ['http://api.localhost/', true],
    ['http://[::1]:3000/', true],
    ['https://example.com/', false],
    ['http://10.0.0.1/', false],
    ['http://127.0.0.1.nip.io/', false],
    ['http://[::ffff:7f00:1]/', false],
    ['http://0.0.0.0/', false],
  ])('%s → %s', (url, expected) => {
    expect(isLoopbackUrl(new URL(url))).toBe(expected);
  });
});
