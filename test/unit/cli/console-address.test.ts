import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONSOLE_PATH, servesConsoleOn } from '../../../src/cli/console-address.js';
import { CONSOLE_PATH as SERVER_CONSOLE_PATH } from '../../../src/server/console/page.js';
import { isLoopbackHost } from '../../../src/server/console/routes.js';

describe("the CLI's copy of the console's address", () => {
  it('is the reference server’s path', () => {
    expect(CONSOLE_PATH).toBe(SERVER_CONSOLE_PATH);
  });

  it('names the hosts the server serves the console on', () => {
    for (const host of ['localhost', 'LOCALHOST', '127.0.0.1', '127.9.9.9', '::1', '[::1]']) {
      expect(servesConsoleOn(host), host).toBe(true);
    }
    for (const host of ['0.0.0.0', '::', 'example.com', 'a.localhost', '128.0.0.1', '']) {
      expect(servesConsoleOn(host), host).toBe(false);
    }
  });

  it('agrees with the server on any host', () => {
    const host = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.constantFrom('localhost', '::1', '[::1]', '127.0.0.1', '0.0.0.0'),
      fc.tuple(fc.nat(300), fc.nat(300), fc.nat(300)).map(([a, b, c]) => `127.${a}.${b}.${c}`),
    );
    fc.assert(fc.property(host, (h) => servesConsoleOn(h) === isLoopbackHost(h)));
  });
});
