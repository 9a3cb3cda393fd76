/**
 * One WebSocket connection of an agent, from `new WebSocket(url)` to its end.
 *
 * Protocol invariants kept here:
 * - The URL carries no credential; the `auth` frame (`agent_id`, `token`) is
 *   the first frame, sent synchronously in the `open` handler, well inside
 *   the service's 5 s.
 * - `auth.ok` / `auth.error` must arrive within `authTimeoutMs`; after an
 *   `auth.error` the server's close is awaited (its close code is kept).
 * - Every frame goes through `parseWsFrame`; an invalid one is reported as a
 *   protocol error and dropped, never thrown.
 * - `ended` resolves exactly once, after the socket emitted `close` (or after
 *   `closeTimeoutMs` if it never does), so the dispatcher can guarantee that
 *   at most one socket exists at a time.
 * - Flow control pauses reading only while open (never before `auth.ok`),
 *   suspends the dead check meanwhile, and reads again to close.
 *
 * @module
 */
import type { TimerHandle } from '../../core/clock.js';
import { isAmsError } from '../../core/errors/guards.js';
import { TransportError } from '../../core/errors/transport-error.js';
import { WS_CLOSE_CODES } from '../../core/protocol/ws-close.js';
import { authFrame, parseWsFrame, type AckTerms, type ParsedWsFrame } from '../../core/protocol/ws-frames.js';
import { createHeartbeat, type Heartbeat } from './heartbeat.js';
import type {
  ClientFailure,
  ConnectionEnd,
  ConnectionListener,
  ConnectionSettings,
} from './connection-types.js';
import { ReadPause } from './read-pause.js';
import type { SocketCloseEvent, SocketMessageEvent, WebSocketLike } from './socket.js';

export type {
  ClientFailure,
  ConnectionEnd,
  ConnectionListener,
  ConnectionSettings,
} from './connection-types.js';

type Phase = 'connecting' | 'authenticating' | 'open' | 'closing' | 'ended';

/** One socket's life. */
export class WsConnection {
  /** Resolves once, when the socket is gone. */
  readonly ended: Promise<ConnectionEnd>;
  readonly #s: ConnectionSettings;
  readonly #listener: ConnectionListener;
  #socket: WebSocketLike | undefined;
  #phase: Phase = 'connecting';
  #timer: TimerHandle | undefined;
  #heartbeat: Heartbeat | undefined;
  #authError: string | undefined;
  #authenticated = false;
  #ackTerms: AckTerms | undefined;
  #sessionInvalidated = false;
  #failure: ClientFailure | undefined;
  #closedByClient = false;
  #reads: ReadPause;
  #resolve!: (end: ConnectionEnd) => void;

  constructor(settings: ConnectionSettings, listener: ConnectionListener) {
    this.#s = settings;
    this.#listener = listener;
    this.ended = new Promise((resolve) => (this.#resolve = resolve));
    this.#reads = new ReadPause(undefined, settings.logger);
    this.#setTimer(settings.connectTimeoutMs, () => this.abort('connect_timeout'));
    try {
      this.#socket = new settings.WebSocket(settings.url);
    } catch (cause) {
      settings.logger.warn('WebSocket could not be created', { error: (cause as Error)?.name });
      this.#failure = 'socket_error';
      this.#end(WS_CLOSE_CODES.ABNORMAL, '');
      return;
    }
    this.#reads = new ReadPause(this.#socket, settings.logger);
    this.#attach(this.#socket);
  }

  /** True while reading is paused by flow control. */
  get readPaused(): boolean {
    return this.#reads.paused;
  }

  /**
   * Flow control: stop (`true`) or restart reading. Applies while open, or at
   * `auth.ok` when asked earlier. Returns false when the socket cannot pause.
   */
  setReadPaused(paused: boolean): boolean {
    return this.#reads.want(paused, this.#phase === 'open', this.#heartbeat);
  }

  /** The acknowledgement terms `auth.ok` granted; undefined when the service offers none. */
  get ackTerms(): AckTerms | undefined {
    return this.#ackTerms;
  }

  /** True between `auth.ok` and the start of closing. */
  get isOpen(): boolean {
    return this.#phase === 'open';
  }

  /** Bytes the socket has queued and not yet written (0 when unknown). */
  get bufferedAmount(): number {
    return this.#socket?.bufferedAmount ?? 0;
  }

  /** Sends a text frame; false when the connection is not open or the socket refused it. */
  send(text: string): boolean {
    if (this.#phase !== 'open' || this.#socket === undefined) return false;
    try {
      this.#socket.send(text);
      return true;
    } catch {
      return false;
    }
  }

  /** Graceful close (code 1000); resolves `ended` once the socket is gone. */
  close(reason = 'client_close'): void {
    if (this.#phase === 'ended') return;
    this.#closedByClient = true;
    this.#beginClosing(() => this.#socket?.close(WS_CLOSE_CODES.NORMAL, reason));
  }

  /** Cuts the connection at once because of a client-side `failure`. */
  abort(failure: ClientFailure): void {
    if (this.#phase === 'ended') return;
    this.#failure ??= failure;
    this.#s.logger.info('cutting the WebSocket connection', { failure });
    this.#beginClosing(() => {
      if (this.#socket?.terminate !== undefined) this.#socket.terminate();
      else this.#socket?.close(WS_CLOSE_CODES.NORMAL, failure);
    });
  }

  #attach(socket: WebSocketLike): void {
    socket.addEventListener('open', () => this.#onOpen());
    socket.addEventListener('message', (event) => this.#onMessage(event));
    socket.addEventListener('close', (event) => this.#onClose(event));
    socket.addEventListener('error', () => this.#onError());
    socket.on?.('pong', () => this.#heartbeat?.activity());
    socket.on?.('ping', () => this.#heartbeat?.activity());
  }

  #onOpen(): void {
    if (this.#phase !== 'connecting' || this.#socket === undefined) return;
    this.#phase = 'authenticating';
    // The very first frame, before anything else can run: the credential never goes in the URL.
    try {
      this.#socket.send(
        authFrame({
          agentId: this.#s.agentId,
          token: this.#s.token,
          ack: this.#s.acks,
          share: this.#s.share,
        }),
      );
    } catch {
      this.abort('socket_error');
      return;
    }
    this.#setTimer(this.#s.authTimeoutMs, () => this.abort('auth_timeout'));
    this.#listener.upgraded();
    const socket = this.#socket;
    // A socket that cannot show pings and pongs (WHATWG WebSocket) cannot tell a quiet
    // peer from a dead one; it relies on the server's pings and TCP instead.
    if (socket.on === undefined) return;
    this.#heartbeat = createHeartbeat(this.#s.clock, this.#s.heartbeat, {
      ping: socket.ping === undefined ? undefined : () => socket.ping?.(),
      onDead: () => this.abort('dead'),
    });
  }

  #onMessage(event: SocketMessageEvent): void {
    if (this.#phase === 'ended') return;
    this.#heartbeat?.activity();
    if (typeof event.data !== 'string') {
      this.#protocolError(
        new TransportError({
          code: 'TRANSPORT_PROTOCOL',
          message: 'The service sent a binary WebSocket frame.',
        }),
      );
      return;
    }
    let parsed: ParsedWsFrame;
    try {
      parsed = parseWsFrame(event.data);
    } catch (err) {
      this.#protocolError(err);
      return;
    }
    this.#route(parsed);
  }

  #route(parsed: ParsedWsFrame): void {
    const type = parsed.kind === 'unknown' ? parsed.type : parsed.frame.type;
    if (type === 'session.invalidated') {
      this.#sessionInvalidated = true;
      this.#listener.sessionInvalidated();
      this.close('session_invalidated');
      return;
    }
    if (this.#phase === 'authenticating') {
      this.#routeAuth(parsed);
      return;
    }
    // Frames the service sent before it saw our close are still events: taking them avoids
    // losing a delivery a service without acks already counted as delivered.
    if (this.#phase === 'open' || (this.#phase === 'closing' && this.#authenticated))
      this.#listener.frame(parsed);
  }

  #routeAuth(parsed: ParsedWsFrame): void {
    if (parsed.kind === 'control' && parsed.frame.type === 'auth.ok') {
      this.#clearTimer();
      this.#phase = 'open';
      this.#authenticated = true;
      this.#ackTerms = this.#s.acks ? parsed.frame.ack : undefined;
      this.#listener.authenticated();
      if (this.#phase === 'open') this.#reads.apply(this.#heartbeat);
      return;
    }
    if (parsed.kind === 'control' && parsed.frame.type === 'auth.error') {
      this.#authError = parsed.frame.reason;
      this.#listener.authError(parsed.frame.reason);
      // Wait for the server's own close (its code is kept), but not forever.
      this.#beginClosing(() => undefined);
      return;
    }
    this.#protocolError(
      new TransportError({
        code: 'TRANSPORT_PROTOCOL',
        message: 'A frame arrived before the auth answer; dropped.',
      }),
    );
  }

  #onClose(event: SocketCloseEvent): void {
    const code = typeof event.code === 'number' ? event.code : WS_CLOSE_CODES.ABNORMAL;
    this.#end(code, typeof event.reason === 'string' ? event.reason.slice(0, 123) : '');
  }

  #onError(): void {
    if (this.#phase === 'ended') return;
    this.#s.logger.debug('WebSocket error event');
    // `close` normally follows; make sure the connection ends even if it does not.
    if (this.#phase !== 'closing') {
      this.#failure ??= 'socket_error';
      this.#beginClosing(() => undefined);
    }
  }

  #protocolError(err: unknown): void {
    const error = isAmsError(err)
      ? err
      : new TransportError({
          code: 'TRANSPORT_PROTOCOL',
          message: 'An invalid WebSocket frame was dropped.',
        });
    this.#listener.protocolError(error);
  }

  #beginClosing(action: () => void): void {
    if (this.#phase === 'ended' || this.#phase === 'closing') return;
    this.#phase = 'closing';
    this.#heartbeat?.stop();
    this.#reads.release();
    this.#setTimer(this.#s.closeTimeoutMs, () => {
      this.#socket?.terminate?.();
      this.#end(WS_CLOSE_CODES.ABNORMAL, '');
    });
    try {
      action();
    } catch {
      this.#end(WS_CLOSE_CODES.ABNORMAL, '');
    }
  }

  #end(code: number, reason: string): void {
    if (this.#phase === 'ended') return;
    this.#phase = 'ended';
    this.#clearTimer();
    this.#heartbeat?.stop();
    this.#resolve({
      code,
      reason,
      authenticated: this.#authenticated,
      authError: this.#authError,
      sessionInvalidated: this.#sessionInvalidated,
      failure: this.#failure,
      closedByClient: this.#closedByClient,
    });
  }

  #setTimer(ms: number, fn: () => void): void {
    this.#clearTimer();
    this.#timer = this.#s.clock.setTimeout(fn, ms);
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) this.#s.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
