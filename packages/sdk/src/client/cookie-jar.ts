/**
 * A cookie jar of one: the `refresh_token` cookie the service sets on every
 * sign-in and refresh, kept in memory only and sent back as `Cookie` to
 * `POST /auth/refresh`.
 *
 * The service sets it `HttpOnly; Secure; SameSite=Strict; Path=/auth;
 * Max-Age=2592000`. A browser would never send a `Secure` cookie over plain
 * http; this jar follows that rule except towards loopback hosts
 * (`localhost`, `127.0.0.0/8`, `::1`: the reference server runs on
 * `http://127.0.0.1`) and origins the caller lists in
 * `insecureCookieOrigins`. Anywhere else, a refresh over http fails with a
 * {@link ConfigurationError} instead of leaking the cookie.
 *
 * The value is a secret: it is never logged and never part of an error.
 *
 * @module
 */
import type { Clock } from '../core/clock.js';
import { ConfigurationError } from '../core/errors/configuration-error.js';

/** Name of the refresh cookie. */
export const REFRESH_COOKIE_NAME = 'refresh_token';

/** Response headers as the REST client gives them. */
/** A `set-cookie` header as HTTP clients give it: one string, several, or none. */
export type SetCookieHeader = string | readonly string[] | undefined;

interface StoredCookie {
  readonly value: string;
  readonly path: string;
  readonly secure: boolean;
  /** ms since the epoch; undefined for a session cookie. */
  readonly expiresAtMs: number | undefined;
}

/** The parsed attributes of one Set-Cookie line, or undefined when it is not the refresh cookie. */
export function parseRefreshSetCookie(line: string, nowMs: number): StoredCookie | 'clear' | undefined {
  const [pair = '', ...attrs] = line.split(';');
  const eq = pair.indexOf('=');
  if (eq < 0 || pair.slice(0, eq).trim() !== REFRESH_COOKIE_NAME) return undefined;
  const value = pair.slice(eq + 1).trim();
  let path = '/';
  let secure = false;
  let expiresAtMs: number | undefined;
  let maxAgeSeen = false;
  for (const attr of attrs) {
    const i = attr.indexOf('=');
    const name = (i < 0 ? attr : attr.slice(0, i)).trim().toLowerCase();
    const v = i < 0 ? '' : attr.slice(i + 1).trim();
    if (name === 'secure') secure = true;
    else if (name === 'path' && v.startsWith('/')) path = v;
    else if (name === 'max-age' && /^-?\d{1,12}$/.test(v)) {
      maxAgeSeen = true; // Max-Age wins over Expires (RFC 6265 §5.3)
      expiresAtMs = nowMs + Number(v) * 1000;
    } else if (name === 'expires' && !maxAgeSeen) {
      const t = Date.parse(v);
      if (!Number.isNaN(t)) expiresAtMs = t;
    }
  }
  // A cookie-safe value only: it goes back into a header.
  if (value === '' || (expiresAtMs !== undefined && expiresAtMs <= nowMs)) return 'clear';
  if (!/^[\x21-\x7e]{1,4096}$/.test(value) || /[;,"\\]/.test(value)) return undefined;
  return { value, path, secure, expiresAtMs };
}

/** True for `localhost`, `*.localhost`, `127.0.0.0/8` and `::1`. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** Options of {@link RefreshCookieJar}. */
export interface RefreshCookieJarOptions {
  /** The service's base URL (the cookie is only sent there). */
  readonly baseUrl: URL;
  /** Time source of the cookie's expiry. */
  readonly clock: Clock;
  /** Plain-http origins (e.g. `http://dev-box:8080`) that may receive the Secure cookie anyway. */
  readonly insecureCookieOrigins?: readonly string[];
}

/** Keeps the refresh cookie of one service in memory. */
export class RefreshCookieJar {
  #cookie: StoredCookie | undefined;
  readonly #base: URL;
  readonly #clock: Clock;
  readonly #insecureOk: boolean;

  constructor(options: RefreshCookieJarOptions) {
    this.#base = options.baseUrl;
    this.#clock = options.clock;
    const origins = new Set((options.insecureCookieOrigins ?? []).map((o) => new URL(o).origin));
    this.#insecureOk =
      this.#base.protocol === 'https:' ||
      isLoopbackHost(this.#base.hostname) ||
      origins.has(this.#base.origin);
  }

  /** Takes the refresh cookie from a response's `set-cookie` header(s), if there is one. */
  store(setCookie: SetCookieHeader): void {
    const lines = setCookie === undefined ? [] : typeof setCookie === 'string' ? [setCookie] : setCookie;
    for (const line of lines) {
      const parsed = parseRefreshSetCookie(line, this.#clock.now());
      if (parsed === 'clear') this.#cookie = undefined;
      else if (parsed !== undefined) this.#cookie = parsed;
    }
  }

  /** True while a cookie that has not expired is held. */
  get present(): boolean {
    const c = this.#cookie;
    return c !== undefined && (c.expiresAtMs === undefined || this.#clock.now() < c.expiresAtMs);
  }

  /**
   * The `Cookie` header value for a request to `path`, or undefined when no
   * live cookie applies to it.
   *
   * @throws {@link ConfigurationError} (option `insecureCookieOrigins`) when the
   *   cookie is Secure and the base URL is plain http to a host that is neither
   *   loopback nor listed.
   */
  header(path: string): string | undefined {
    const c = this.#cookie;
    if (c === undefined || !this.present) return undefined;
    const prefix = c.path.endsWith('/') ? c.path : `${c.path}/`;
    if (path !== c.path && !path.startsWith(prefix)) return undefined;
    if (c.secure && !this.#insecureOk) {
      throw new ConfigurationError({
        option: 'insecureCookieOrigins',
        message:
          'The refresh cookie is Secure and the service URL is plain http: use https, or list the origin in "insecureCookieOrigins".',
      });
    }
    return `${REFRESH_COOKIE_NAME}=${c.value}`;
  }

  /** Forgets the cookie (sign-out, or the service refused it). */
  clear(): void {
    this.#cookie = undefined;
  }

  /** Never shows the cookie's value. */
  toJSON(): Record<string, unknown> {
    return { present: this.present };
  }
}
