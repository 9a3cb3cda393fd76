/**
 * Renews the access token ahead of its expiry while the WebSocket is up:
 * at {@link RENEW_AT_FRACTION} of its lifetime (on the client's clock) the
 * session is refreshed, and the new token reaches the open connection as
 * `auth.renew` (through the session's token listeners). A failed refresh is
 * logged; the service then closes the connection at expiry (4003) and the
 * socket refreshes, reconnects and catches up.
 *
 * @module
 */
import type { Clock, TimerHandle } from '../core/clock.js';
import type { Logger } from '../core/logger.js';

/** When in the token's lifetime the renewal runs. */
export const RENEW_AT_FRACTION = 0.8;

/** What the renewal needs from the session. */
export interface RenewableSession {
  /** When the current token was accepted and when it expires, ms since the epoch; undefined when signed out. */
  tokenWindow(): { readonly issuedAtMs: number; readonly expiresAtMs: number } | undefined;
  /** Gets a new token (its listeners renew the WebSocket). */
  refresh(): Promise<void>;
}

/** The renewal timer. Call {@link TokenRenewal.arm} for every new token; {@link TokenRenewal.stop} at the end. */
export class TokenRenewal {
  #timer: TimerHandle | undefined;
  #running = false;

  constructor(
    private readonly session: RenewableSession,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /** True while the timer is armed. */
  get armed(): boolean {
    return this.#timer !== undefined;
  }

  /** (Re-)arms the timer for the current token. */
  arm(): void {
    this.#clear();
    this.#running = true;
    const window = this.session.tokenWindow();
    if (window === undefined) return;
    const at = window.issuedAtMs + (window.expiresAtMs - window.issuedAtMs) * RENEW_AT_FRACTION;
    this.#timer = this.clock.setTimeout(
      () => {
        this.#timer = undefined;
        this.session.refresh().catch((err: unknown) => {
          this.log.warn('renewing the access token before expiry failed', { error: (err as Error)?.name });
        });
      },
      Math.max(0, at - this.clock.now()),
      { background: true },
    );
  }

  /** Re-arms for a new token, unless stopped. */
  tokenChanged(): void {
    if (this.#running) this.arm();
  }

  /** Cancels the timer until the next {@link TokenRenewal.arm}. */
  stop(): void {
    this.#running = false;
    this.#clear();
  }

  #clear(): void {
    if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
