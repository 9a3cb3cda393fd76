/**
 * Which URLs count as local, for commands that refuse to send test traffic
 * elsewhere unless told to.
 *
 * @module
 */

/**
 * True when the URL's host is a loopback address: `localhost` (or a name
 * under `.localhost`), an IPv4 address in 127.0.0.0/8, or `::1`. Names are not
 * resolved: a DNS name pointing at 127.0.0.1 still counts as remote.
 */
export function isLoopbackUrl(url: URL): boolean {
  const host = url.hostname.toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '[::1]') return true;
  const v4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return v4 !== null && v4.slice(1).every((p) => Number(p) <= 255);
}
