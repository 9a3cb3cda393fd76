/**
 * The refresh-token cookie: reading it from a `Cookie` header and writing it
 * with exactly the attributes the service interface prescribes.
 *
 * @module
 */
import { LIMITS } from 'agent-messaging-sdk/protocol';

/** Name of the refresh cookie. */
export const REFRESH_COOKIE = 'refresh_token';

const MAX_AGE_S = LIMITS.REFRESH_TOKEN_TTL_MS / 1000;

/**
 * `refresh_token=<token>; HttpOnly; Secure; SameSite=Strict; Path=/auth; Max-Age=2592000`.
 * The token must be cookie-safe (base64url).
 */
export function refreshCookie(token: string): string {
  return `${REFRESH_COOKIE}=${token}; HttpOnly; Secure; SameSite=Strict; Path=/auth; Max-Age=${MAX_AGE_S}`;
}

/** A cookie that makes the client forget its refresh token. */
export function clearedRefreshCookie(): string {
  return `${REFRESH_COOKIE}=; HttpOnly; Secure; SameSite=Strict; Path=/auth; Max-Age=0`;
}

/** Reads one cookie from a `Cookie` header; the first occurrence wins. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
