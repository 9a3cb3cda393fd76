/**
 * User access tokens: JWTs signed with HS256 (jose) under a per-server random
 * 256-bit key, valid 300 s.
 *
 * Claims: `iss` = `ams-reference-server`, `aud` = `ams`, `sub` = user_id,
 * `did` = device_id, `sid` = device session id, `iat`, `exp`, `jti`.
 * Verification follows the injected clock (jose's `currentDate`), so a test
 * crosses the 300 s in virtual time.
 *
 * @module
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type * as Jose from 'jose';
import type { Clock } from 'agent-messaging-sdk/protocol';
import { ConfigurationError } from 'agent-messaging-sdk/protocol';
import { LIMITS } from 'agent-messaging-sdk/protocol';

/** Issuer claim of every access token. */
export const ACCESS_TOKEN_ISSUER = 'ams-reference-server';
/** Audience claim of every access token. */
export const ACCESS_TOKEN_AUDIENCE = 'ams';
const ALG = 'HS256';

let joseModule: Promise<typeof Jose> | undefined;

/** jose, imported on first use (keeps `ams serve` start-up short); {@link preloadJose} warms it. */
function loadJose(): Promise<typeof Jose> {
  joseModule ??= import('jose');
  return joseModule;
}

/** Starts importing jose in the background. */
export function preloadJose(): void {
  void loadJose();
}

/** What an access token says about its holder. */
export interface AccessTokenSubject {
  readonly userId: string;
  readonly deviceId: string;
  readonly sessionId: string;
}

/** A freshly signed token. */
export interface SignedAccessToken {
  readonly token: string;
  /** Expiry, ms since the epoch (whole seconds, as in the JWT). */
  readonly expiresAtMs: number;
  /** Lifetime in seconds (300). */
  readonly expiresInSeconds: number;
}

/** The outcome of verifying a token. */
export type AccessTokenCheck =
  | { readonly ok: true; readonly subject: AccessTokenSubject; readonly expiresAtMs: number }
  | { readonly ok: false; readonly reason: 'expired' | 'invalid' };

/** Signs and verifies access tokens. */
export interface AccessTokenService {
  sign(subject: AccessTokenSubject): Promise<SignedAccessToken>;
  verify(token: string): Promise<AccessTokenCheck>;
}

function subjectOf(payload: Record<string, unknown>): AccessTokenSubject | undefined {
  const { sub, did, sid } = payload;
  if (typeof sub !== 'string' || typeof did !== 'string' || typeof sid !== 'string') return undefined;
  return { userId: sub, deviceId: did, sessionId: sid };
}

/**
 * Builds the access-token service.
 *
 * @param secret - HMAC key, at least 32 bytes. @defaultValue 32 random bytes
 * @throws {@link ConfigurationError} when `secret` is shorter than 32 bytes.
 */
export function createAccessTokenService(
  clock: Clock,
  secret: Uint8Array = randomBytes(32),
): AccessTokenService {
  if (secret.length < 32) {
    throw new ConfigurationError({ option: 'jwtSecret', message: 'jwtSecret must be at least 32 bytes.' });
  }
  const key = new Uint8Array(secret);
  const ttlS = LIMITS.ACCESS_TOKEN_TTL_MS / 1000;
  return {
    async sign(subject) {
      const { SignJWT } = await loadJose();
      const iat = Math.floor(clock.now() / 1000);
      const token = await new SignJWT({ did: subject.deviceId, sid: subject.sessionId })
        .setProtectedHeader({ alg: ALG, typ: 'JWT' })
        .setIssuer(ACCESS_TOKEN_ISSUER)
        .setAudience(ACCESS_TOKEN_AUDIENCE)
        .setSubject(subject.userId)
        .setIssuedAt(iat)
        .setExpirationTime(iat + ttlS)
        .setJti(randomUUID())
        .sign(key);
      return { token, expiresAtMs: (iat + ttlS) * 1000, expiresInSeconds: ttlS };
    },
    async verify(token) {
      const { errors, jwtVerify } = await loadJose();
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: [ALG],
          issuer: ACCESS_TOKEN_ISSUER,
          audience: ACCESS_TOKEN_AUDIENCE,
          currentDate: new Date(clock.now()),
          requiredClaims: ['exp', 'iat', 'sub'],
          clockTolerance: 0,
        });
        const subject = subjectOf(payload);
        if (subject === undefined || payload.exp === undefined) return { ok: false, reason: 'invalid' };
        return { ok: true, subject, expiresAtMs: payload.exp * 1000 };
      } catch (err) {
        return { ok: false, reason: err instanceof errors.JWTExpired ? 'expired' : 'invalid' };
      }
    },
  };
}
