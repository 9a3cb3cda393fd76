/**
 * The user's WebSocket (`/ws`): authenticate with the access token in the
 * first frame (`{ type: 'auth', access_token }`), receive message frames,
 * renew the token on the open connection (`auth.renew`) and reconnect with
 * full-jitter back-off when the connection ends.
 *
 * | End of a connection | Next |
 * |---|---|
 * | `session.invalidated` / close 4004 | stop: `sessionInvalidated`, then `fatal` |
 * | `auth.error` `token_expired` / close 4003 | refresh the session, reconnect |
 * | `auth.error` `invalid_token` (close 4001) | refresh once and reconnect; a second refusal is fatal |
 * | another terminal `auth.error` reason | stop: `fatal` |
 * | anything else (1001 shutdown, 1006 lost, …) | reconnect after back-off |
 *
 * `auth.expiring` (60 s before the token expires) triggers a refresh; the
 * client then sends `auth.renew` with the new token. The token is never put
 * in the URL, a log line or an error.
 *
 * With `acks`, `auth` asks for acknowledged delivery (`ack: true`); when
 * `auth.ok` carries the terms, {@link UserSocket.ack} sends the handled
 * delivery ids back in batches (an id that cannot be sent is dropped: the
 * service sends that message again on the next connection).
 *
 * @module
 */
import { EventEmitter } from 'eventemitter3';
import type { Clock, TimerHandle } from '../core/clock.js';
import type { AmsError } from '../core/errors/base.js';
import { isAmsError } from '../core/errors/guards.js';
import { TransportError } from '../core/errors/transport-error.js';
import type { Logger } from '../core/logger.js';
import { AuthOkFrameSchema, authRenewFrame } from '../core/protocol/ws-frames.js';
import { AckBatcher } from '../transport/ws/ack-batcher.js';
import { isTerminalAuthError, WS_CLOSE_CODES } from '../core/protocol/ws-close.js';
import { createBackoff, type Backoff, type BackoffOptions } from '../transport/ws/backoff.js';
import {
  loadDefaultWebSocket,
  type WebSocketConstructor,
  type WebSocketLike,
} from '../transport/ws/socket.js';

/** Events of the user socket. */
export interface UserSocketEvents {
  /** Authenticated (`auth.ok`); `attempt` counts connections; `acks`: the service acknowledges deliveries. */
  open: [info: { attempt: number; acks: boolean }];
  /** A frame other than the control frames (e.g. `message.new`), as parsed JSON. */
  frame: [frame: Readonly<Record<string, unknown>>];
  /** A connection ended. */
  close: [info: { code: number; reason: string }];
  /** Waiting before the next connection. */
  reconnecting: [info: { attempt: number; delayMs: number }];
  /** The device session was revoked (`session.invalidated`): sign in again. */
  sessionInvalidated: [];
  /** Stopped for good. */
  fatal: [error: AmsError];
  /** `auth.ok` answered an `auth.renew`. */
  renewed: [];
  /** The access token expires soon (`auth.expiring`); the socket refreshes it by itself. */
  authExpiring: [info: { readonly expiresInSeconds: number | undefined }];
}

/** Options of {@link UserSocket}. */
export interface UserSocketOptions {
  readonly url: string;
  /** The current access token. */
  readonly accessToken: () => string;
  /** Refreshes the session (the new token is then read with `accessToken`). */
  readonly refresh: () => Promise<void>;
  readonly WebSocket: WebSocketConstructor | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly backoff: BackoffOptions | undefined;
  /** From `new WebSocket()` to `auth.ok`, ms. */
  readonly authTimeoutMs: number;
  /** Ask for acknowledged delivery. */
  readonly acks: boolean;
}

interface End {
  readonly code: number;
  readonly reason: string;
  readonly opened: boolean;
  readonly authError: string | undefined;
  readonly sessionInvalidated: boolean;
}

/** One user WebSocket with reconnects. Create through `UserClient.connect()`. */
export class UserSocket extends EventEmitter<UserSocketEvents> {
  readonly #o: UserSocketOptions;
  readonly #backoff: Backoff;
  #socket: WebSocketLike | undefined;
  #open = false;
  #stopped = false;
  #attempt = 0;
  #wake: (() => void) | undefined;
  #started: { resolve: () => void; reject: (e: unknown) => void } | undefined;
  #done: Promise<void> | undefined;
  #conn: ConnectionState | undefined;
  readonly #acks: AckBatcher;

  constructor(options: UserSocketOptions) {
    super();
    this.#o = options;
    this.#backoff = createBackoff(options.backoff);
    this.#acks = new AckBatcher((text) => {
      if (!this.acks) return false;
      this.#socket?.send(text);
      return true;
    }, options.clock);
  }

  /** True while authenticated. */
  get isOpen(): boolean {
    return this.#open;
  }

  /** True while the open connection has acknowledged delivery. */
  get acks(): boolean {
    return this.#open && this.#conn?.acks === true;
  }

  /** Acknowledges a handled delivery (batched; dropped when the connection has no acks). */
  ack(deliveryId: string): void {
    if (this.#o.acks) this.#acks.add(deliveryId);
  }

  /** Connects; resolves on the first `auth.ok`, rejects when the socket stops for good first. */
  start(): Promise<void> {
    if (this.#done !== undefined) return Promise.reject(new Error('UserSocket already started'));
    const first = new Promise<void>((resolve, reject) => (this.#started = { resolve, reject }));
    first.catch(() => undefined);
    this.#done = this.#run();
    return first;
  }

  /** Sends `auth.renew` with a new access token on the open connection (ignored when not open). */
  renew(accessToken: string): void {
    if (this.#open) this.#socket?.send(authRenewFrame(accessToken));
  }

  /** Closes the connection (code 1000) and stops reconnecting. Resolves once it is gone. */
  async close(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    this.#acks.flush();
    this.#socket?.close(WS_CLOSE_CODES.NORMAL, 'client closing');
    await this.#done;
  }

  #emit<E extends keyof UserSocketEvents>(event: E, ...args: UserSocketEvents[E]): void {
    try {
      (this.emit as (e: E, ...a: UserSocketEvents[E]) => boolean)(event, ...args);
    } catch (err) {
      this.#o.logger.warn('a user socket listener threw', { event, error: (err as Error)?.name });
    }
  }

  #fail(error: AmsError): void {
    this.#stopped = true;
    this.#emit('fatal', error);
    this.#started?.reject(error);
  }

  async #run(): Promise<void> {
    let refreshedForAuth = false;
    while (!this.#stopped) {
      const end = await this.#connectOnce().catch((err: unknown) => this.#failedConnect(err));
      this.#emit('close', { code: end.code, reason: end.reason });
      if (end.opened) refreshedForAuth = false;
      if (this.#stopped) break;
      if (end.sessionInvalidated || end.code === WS_CLOSE_CODES.SESSION_INVALIDATED) {
        this.#emit('sessionInvalidated');
        this.#fail(
          new TransportError({ code: 'TRANSPORT_CLOSED', message: 'The device session was revoked.' }),
        );
        break;
      }
      const expired = end.authError === 'token_expired' || end.code === WS_CLOSE_CODES.TOKEN_EXPIRED;
      const refused: boolean = end.authError === 'invalid_token' && !refreshedForAuth;
      if (expired || refused) {
        refreshedForAuth = refused;
        if (!(await this.#refresh())) break;
        continue;
      }
      if (end.authError !== undefined && isTerminalAuthError(end.authError)) {
        this.#fail(
          new TransportError({
            code: 'TRANSPORT_CLOSED',
            message: `Authentication refused (${end.authError}).`,
          }),
        );
        break;
      }
      await this.#wait(this.#backoff.next());
    }
    this.#started?.reject(
      new TransportError({ code: 'TRANSPORT_CLOSED', message: 'The socket was closed.' }),
    );
  }

  async #refresh(): Promise<boolean> {
    try {
      await this.#o.refresh();
      return true;
    } catch (err) {
      const error = isAmsError(err)
        ? err
        : new TransportError({
            code: 'TRANSPORT_CLOSED',
            message: 'Refreshing the session failed.',
            cause: err,
          });
      this.#fail(error);
      return false;
    }
  }

  #failedConnect(err: unknown): End {
    this.#o.logger.warn('user socket could not connect', { error: (err as Error)?.name });
    return {
      code: WS_CLOSE_CODES.ABNORMAL,
      reason: '',
      opened: false,
      authError: undefined,
      sessionInvalidated: false,
    };
  }

  #wait(delayMs: number): Promise<void> {
    this.#emit('reconnecting', { attempt: this.#backoff.attempt, delayMs });
    return new Promise<void>((resolve) => {
      const h = this.#o.clock.setTimeout(() => resolve(), delayMs);
      this.#wake = () => {
        this.#o.clock.clearTimeout(h);
        resolve();
      };
    });
  }

  async #connectOnce(): Promise<End> {
    const Ctor = this.#o.WebSocket ?? (await loadDefaultWebSocket());
    const token = this.#o.accessToken();
    const socket = new Ctor(this.#o.url);
    this.#socket = socket;
    this.#attempt += 1;
    const conn: ConnectionState = {
      acks: false,
      opened: false,
      authError: undefined,
      sessionInvalidated: false,
      timer: undefined,
    };
    this.#conn = conn;
    conn.timer = this.#o.clock.setTimeout(
      () => socket.close(WS_CLOSE_CODES.NORMAL, 'auth timeout'),
      this.#o.authTimeoutMs,
    );
    return new Promise<End>((resolve) => {
      const auth = this.#o.acks ? { ack: true } : {};
      socket.addEventListener('open', () =>
        socket.send(JSON.stringify({ type: 'auth', access_token: token, ...auth })),
      );
      socket.addEventListener('error', () => undefined);
      socket.addEventListener('message', (event) => this.#onMessage(conn, event.data));
      socket.addEventListener('close', (event) => {
        this.#stopTimer(conn);
        this.#open = false;
        this.#socket = undefined;
        if (conn.opened) this.#backoff.disconnected(this.#o.clock.now());
        // A renewal refused on an open connection does not end it; only the auth answer counts.
        const authError = conn.opened && conn.authError !== 'token_expired' ? undefined : conn.authError;
        const { opened, sessionInvalidated } = conn;
        resolve({ code: event.code, reason: event.reason, opened, authError, sessionInvalidated });
      });
    });
  }

  #stopTimer(conn: ConnectionState): void {
    if (conn.timer !== undefined) this.#o.clock.clearTimeout(conn.timer);
    conn.timer = undefined;
  }

  #onMessage(conn: ConnectionState, data: unknown): void {
    const frame = parseFrame(data);
    if (frame === undefined) return this.#o.logger.warn('user socket: dropped a malformed frame');
    const type = frame['type'];
    if (type === 'auth.ok') {
      if (conn.opened) return this.#emit('renewed');
      conn.opened = true;
      const terms = AuthOkFrameSchema.safeParse(frame).data?.ack;
      conn.acks = terms !== undefined;
      if (terms !== undefined) this.#acks.maxBatch = Math.max(1, Math.floor(terms.window / 4));
      this.#open = true;
      this.#stopTimer(conn);
      this.#backoff.connected(this.#o.clock.now());
      this.#emit('open', { attempt: this.#attempt, acks: conn.acks });
      this.#started?.resolve();
    } else if (type === 'auth.error') {
      conn.authError = typeof frame['reason'] === 'string' ? frame['reason'].slice(0, 100) : 'unknown';
      if (conn.opened) this.#o.logger.warn('user socket: auth.renew refused', { reason: conn.authError });
    } else if (type === 'auth.expiring') {
      const seconds = frame['expires_in_seconds'];
      this.#emit('authExpiring', {
        expiresInSeconds: typeof seconds === 'number' && Number.isFinite(seconds) ? seconds : undefined,
      });
      void this.#o.refresh().catch(() => this.#o.logger.warn('user socket: refresh before expiry failed'));
    } else if (type === 'session.invalidated') {
      conn.sessionInvalidated = true;
    } else if (type === 'error') {
      this.#o.logger.warn('user socket: the service reported an error frame');
    } else this.#emit('frame', frame);
  }
}

/** What one connection has seen so far. */
interface ConnectionState {
  /** `auth.ok` carried ack terms. */
  acks: boolean;
  opened: boolean;
  authError: string | undefined;
  sessionInvalidated: boolean;
  timer: TimerHandle | undefined;
}

function parseFrame(data: unknown): Record<string, unknown> | undefined {
  const text =
    typeof data === 'string'
      ? data
      : data instanceof Uint8Array
        ? new TextDecoder().decode(data)
        : String(data);
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' &&
      v !== null &&
      !Array.isArray(v) &&
      typeof (v as Record<string, unknown>)['type'] === 'string'
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
