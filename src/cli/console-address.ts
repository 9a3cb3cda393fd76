/**
 * Where `ams serve --dev` says the dev console is, and on which hosts the
 * reference server serves it. The CLI reaches the library through its public
 * entries only, and the console's path and host rule are the server's own
 * (`src/server/console/`), so the CLI keeps a copy; a unit test holds the two
 * equal.
 *
 * @module
 */

/** The console's path on the reference server. */
export const CONSOLE_PATH = '/_console/';

/**
 * True when a reference server bound to `host` serves the console: a
 * loopback host (`localhost`, `::1` with or without brackets, 127.x.x.x).
 */
export function servesConsoleOn(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
