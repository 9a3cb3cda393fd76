/**
 * The signed-in user's session: the access token (a 300 s JWT), the user and
 * device ids, and the refresh cookie. Sign-in answers and refreshes go
 * through {@link UserSession.accept}; {@link UserSession.refresh} is shared
 * by concurrent callers (the REST client's `TOKEN_EXPIRED` hook, the
 * WebSocket's `auth.expiring`), so one refresh runs at a time.
 *
 * @module
 */
import type { Clock } from '../core/clock.js';
import { isServiceError } from '../core/errors/guards.js';
import { ServiceError } from '../core/errors/service-error.js';
import type { Logger } from '../core/logger.js';
import type { RestClient, RestResponse } from '../transport/rest/client.js';
import type { RefreshCookieJar } from './cookie-jar.js';
import { TokenAnswerSchema, type TokenAnswer } from '../messaging/wire/auth.js';

/** Who is signed in (no secrets). */
export interface SessionInfo {
  readonly userId: string;
  readonly deviceId: string;
  /** When the current access token expires, ms since the epoch (client's estimate). */
  readonly accessTokenExpiresAtMs: number;
}

/** Path of the refresh endpoint. */
export const REFRESH_PATH = '/auth/refresh';

/** Holds the access token and refreshes it. */
export class UserSession {
  #token: string | undefined;
  #info: SessionInfo | undefined;
  #refreshing: Promise<void> | undefined;
  #issuedAtMs = 0;
  readonly #listeners = new Set<(accessToken: string) => void>();

  constructor(
    private readonly rest: () => RestClient,
    private readonly jar: RefreshCookieJar,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly fallbackDeviceId: string,
  ) {}

  /** The signed-in user, or undefined. */
  get info(): SessionInfo | undefined {
    return this.#info;
  }

  /**
   * The current access token (for the REST client's credentials provider).
   *
   * @throws {@link ServiceError} `UNAUTHORIZED` (status 401) when nobody is signed in.
   */
  accessToken(): string {
    if (this.#token === undefined) {
      throw new ServiceError({ code: 'UNAUTHORIZED', status: 401, message: 'Not signed in: sign in first.' });
    }
    return this.#token;
  }

  /** When the current access token was accepted and when it expires (client's clock); undefined when signed out. */
  tokenWindow(): { readonly issuedAtMs: number; readonly expiresAtMs: number } | undefined {
    const info = this.#info;
    return info === undefined
      ? undefined
      : { issuedAtMs: this.#issuedAtMs, expiresAtMs: info.accessTokenExpiresAtMs };
  }

  /** Calls `listener` with every new access token (to renew a WebSocket). Returns an unsubscribe function. */
  onToken(listener: (accessToken: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Takes a token answer (sign-in or refresh) and its refresh cookie. */
  accept(res: RestResponse<TokenAnswer>): SessionInfo {
    const a = res.data;
    this.jar.store(res.headers['set-cookie']);
    this.#token = a.access_token;
    this.#issuedAtMs = this.clock.now();
    this.#info = {
      userId: a.user_id,
      deviceId: a.device_id ?? this.#info?.deviceId ?? this.fallbackDeviceId,
      accessTokenExpiresAtMs: this.clock.now() + a.expires_in_seconds * 1000,
    };
    for (const listener of this.#listeners) {
      try {
        listener(a.access_token);
      } catch (err) {
        this.log.warn('a session token listener threw', { error: (err as Error)?.name });
      }
    }
    return this.#info;
  }

  /**
   * Gets a new access token with the refresh cookie. Concurrent calls share one request.
   *
   * @throws {@link ServiceError} `TOKEN_EXPIRED` (401) when the refresh token is missing,
   *   expired or revoked: sign in again (the session and cookie are cleared).
   */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#refreshOnce().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #refreshOnce(): Promise<void> {
    const cookie = this.jar.header(REFRESH_PATH);
    if (cookie === undefined) {
      this.clear();
      throw new ServiceError({
        code: 'TOKEN_EXPIRED',
        status: 401,
        message: 'No refresh cookie is held (never signed in, expired or cleared): sign in again.',
      });
    }
    try {
      const res = await this.rest().requestWithResponse({
        method: 'POST',
        path: REFRESH_PATH,
        auth: false,
        headers: { cookie },
        schema: TokenAnswerSchema,
      });
      this.accept(res);
      this.log.debug('access token refreshed', { userId: this.#info?.userId });
    } catch (err) {
      if (isServiceError(err, 'TOKEN_EXPIRED') || isServiceError(err, 'UNAUTHORIZED')) {
        this.log.info('refresh refused: the user must sign in again', { code: err.code });
        this.clear();
      }
      throw err;
    }
  }

  /** Forgets the access token and the refresh cookie. */
  clear(): void {
    this.#token = undefined;
    this.#info = undefined;
    this.jar.clear();
  }
}
