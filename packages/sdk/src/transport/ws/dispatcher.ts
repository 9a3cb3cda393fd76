/**
 * The agent's WebSocket dispatcher: keeps exactly one authenticated
 * connection to the service, reconnects with full-jitter back-off, stops for
 * good on terminal conditions, and emits typed events.
 *
 * One socket at a time: the run loop creates a connection, awaits its end
 * (the socket's `close`), decides, waits the back-off, and only then creates
 * the next. Nothing else creates sockets.
 *
 * @module
 */
import { EventEmitter } from 'eventemitter3';
import type { AmsError } from '../../core/errors/base.js';
import { isTerminalCode } from '../../core/errors/codes.js';
import { isAmsError } from '../../core/errors/guards.js';
import { TransportError } from '../../core/errors/transport-error.js';
import { validationError } from '../../core/protocol/parse.js';
import { isTerminalAuthError } from '../../core/protocol/ws-close.js';
import { authRenewFrame, FRAME_CREDENTIAL_MAX_CHARS } from '../../core/protocol/ws-frames.js';
import { clockSleep } from '../rest/options.js';
import type { WsDispatcher, WsDispatcherListener } from './dispatcher-types.js';
import { WsConnection, type ConnectionEnd, type ConnectionListener } from './connection.js';
import { AckBatcher } from './ack-batcher.js';
import { decide } from './decide.js';
import { routeOpenFrame } from './route.js';
import type { FatalInfo, WsDispatcherEventName, WsDispatcherEvents } from './events.js';
import { resolveWsOptions, type ResolvedWsOptions, type WsDispatcherOptions } from './options.js';
import { loadDefaultWebSocket, type WebSocketConstructor } from './socket.js';
import { createStateMachine, isFinalState, type StateMachine, type WsState } from './states.js';

export type { WsDispatcher, WsDispatcherListener } from './dispatcher-types.js';

/** Fatal info when no socket was involved (the credential or the `ws` package failed). */
const NO_SOCKET: FatalInfo = Object.freeze({
  closeCode: 1006,
  closeReason: '',
  authError: undefined,
  sessionInvalidated: false,
});

class Dispatcher implements WsDispatcher {
  readonly #o: ResolvedWsOptions;
  readonly #events = new EventEmitter<WsDispatcherEvents>();
  readonly #sm: StateMachine;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  #token: string | undefined;
  #conn: WsConnection | undefined;
  #loop: Promise<void> | undefined;
  #started: Promise<void> | undefined;
  #settleStart: ((error?: AmsError) => void) | undefined;
  #wait: AbortController | undefined;
  #connections = 0;
  #readPaused = false;
  #toldNoAcks = false;
  readonly #acks: AckBatcher;

  constructor(options: WsDispatcherOptions) {
    this.#o = resolveWsOptions(options);
    this.#token = this.#o.staticToken;
    this.#sleep = clockSleep(this.#o.clock);
    this.#acks = new AckBatcher(
      (text) => this.#conn?.ackTerms !== undefined && this.#conn.send(text),
      this.#o.clock,
    );
    this.#sm = createStateMachine((from, to) => {
      this.#o.logger.debug('WebSocket state', { from, to });
      this.#emit('state', { from, to });
    });
  }

  get state(): WsState {
    return this.#sm.state;
  }

  get readPaused(): boolean {
    return this.#conn?.readPaused ?? false;
  }

  get acks(): boolean {
    return this.#sm.state === 'open' && this.#conn?.ackTerms !== undefined;
  }

  ack(deliveryId: string): void {
    if (this.#o.acks) this.#acks.add(deliveryId);
  }

  sendFrame(text: string): boolean {
    return this.#sm.state === 'open' && this.#conn?.send(text) === true;
  }

  get bufferedAmount(): number {
    return this.#conn?.bufferedAmount ?? 0;
  }

  setReadPaused(paused: boolean): boolean {
    this.#readPaused = paused;
    return this.#conn?.setReadPaused(paused) ?? true;
  }

  start(): Promise<void> {
    if (this.#started !== undefined) return this.#started;
    this.#started = new Promise<void>((resolve, reject) => {
      this.#settleStart = (error) => (error === undefined ? resolve() : reject(error));
    });
    // Also reported through events: an unawaited start() must not become an unhandled rejection.
    this.#started.catch(() => undefined);
    if (isFinalState(this.#sm.state)) {
      this.#settle(new TransportError({ code: 'TRANSPORT_CLOSED', message: 'The dispatcher was closed.' }));
    } else {
      this.#loop = this.#run();
    }
    return this.#started;
  }

  async close(): Promise<void> {
    if (this.#sm.to('closed')) {
      this.#settle(
        new TransportError({
          code: 'TRANSPORT_CLOSED',
          message: 'The dispatcher was closed before it opened.',
        }),
      );
      this.#wait?.abort();
      // Acks of events finished so far leave before the close frame.
      this.#acks.flush();
      this.#conn?.close();
    }
    await this.#loop;
  }

  renew(accessToken: string): void {
    if (
      typeof accessToken !== 'string' ||
      accessToken.length === 0 ||
      accessToken.length > FRAME_CREDENTIAL_MAX_CHARS
    ) {
      throw validationError('access token', [{ path: [], message: 'Expected 1 to 8192 characters' }]);
    }
    if (this.#sm.state !== 'open' || this.#conn?.send(authRenewFrame(accessToken)) !== true) {
      throw new TransportError({ code: 'TRANSPORT_CLOSED', message: 'renew() needs an open connection.' });
    }
    if (this.#o.staticToken !== undefined) this.#token = accessToken;
  }

  on<E extends WsDispatcherEventName>(event: E, listener: WsDispatcherListener<E>): WsDispatcher {
    this.#events.on(event, listener as never);
    return this;
  }

  once<E extends WsDispatcherEventName>(event: E, listener: WsDispatcherListener<E>): WsDispatcher {
    this.#events.once(event, listener as never);
    return this;
  }

  off<E extends WsDispatcherEventName>(event: E, listener: WsDispatcherListener<E>): WsDispatcher {
    this.#events.off(event, listener as never);
    return this;
  }

  #emit<E extends WsDispatcherEventName>(event: E, ...args: WsDispatcherEvents[E]): void {
    try {
      (this.#events.emit as (e: E, ...a: WsDispatcherEvents[E]) => boolean)(event, ...args);
    } catch (err) {
      // A throwing listener must not break the connection it is observing.
      this.#o.logger.warn('a WebSocket dispatcher listener threw', { event, error: (err as Error)?.name });
    }
  }

  #settle(error?: AmsError): void {
    const settle = this.#settleStart;
    this.#settleStart = undefined;
    settle?.(error);
  }

  #stopFatal(error: AmsError, info: FatalInfo): void {
    if (!this.#sm.to('fatal')) return;
    this.#o.logger.error('WebSocket stopped for good', { code: error.code, closeCode: info.closeCode });
    this.#settle(error);
    this.#emit('fatal', error, info);
  }

  async #run(): Promise<void> {
    const ctor = await this.#socketClass();
    while (ctor !== undefined && !isFinalState(this.#sm.state)) {
      if (this.#connections > 0 && !(await this.#backoff())) break;
      if (!this.#sm.to('connecting')) break;
      const token = await this.#credential();
      if (token === undefined || isFinalState(this.#sm.state)) continue;
      this.#connections += 1;
      const conn = new WsConnection({ ...this.#o, WebSocket: ctor, token }, this.#listener());
      this.#conn = conn;
      if (this.#readPaused) conn.setReadPaused(true);
      const end = await conn.ended;
      this.#conn = undefined;
      this.#afterEnd(end);
    }
  }

  async #socketClass(): Promise<WebSocketConstructor | undefined> {
    if (this.#o.WebSocket !== undefined) return this.#o.WebSocket;
    try {
      return await loadDefaultWebSocket();
    } catch (cause) {
      const error = new TransportError({
        code: 'TRANSPORT_NETWORK',
        message: 'The "ws" package could not be loaded.',
        cause,
      });
      this.#stopFatal(error, NO_SOCKET);
      return undefined;
    }
  }

  /** Waits the back-off; false when closed meanwhile. */
  async #backoff(): Promise<boolean> {
    const delayMs = this.#o.backoff.next();
    if (!this.#sm.to('waiting')) return false;
    this.#o.logger.info('WebSocket reconnecting', { attempt: this.#o.backoff.attempt, delayMs });
    this.#emit('reconnecting', { attempt: this.#o.backoff.attempt, delayMs });
    this.#wait = new AbortController();
    try {
      await this.#sleep(delayMs, this.#wait.signal);
    } catch {
      return false;
    } finally {
      this.#wait = undefined;
    }
    return !isFinalState(this.#sm.state);
  }

  async #credential(): Promise<string | undefined> {
    try {
      const token = this.#o.token === undefined ? this.#token : await this.#o.token();
      if (typeof token === 'string' && token.length > 0) return token;
      throw new TransportError({
        code: 'TRANSPORT_PROTOCOL',
        message: 'The credentials provider gave no token.',
      });
    } catch (err) {
      const terminal = isAmsError(err) && (isTerminalCode(err.code) || err.kind === 'configuration');
      this.#o.logger.warn('the credentials provider failed', { terminal, error: (err as Error)?.name });
      const error = isAmsError(err)
        ? err
        : new TransportError({
            code: 'TRANSPORT_PROTOCOL',
            message: 'The credentials provider failed.',
            cause: err,
          });
      if (terminal) this.#stopFatal(error, NO_SOCKET);
      this.#connections += 1;
      return undefined;
    }
  }

  #afterEnd(end: ConnectionEnd): void {
    this.#o.backoff.disconnected(this.#o.clock.now());
    this.#o.logger.info('WebSocket closed', { code: end.code, failure: end.failure ?? 'none' });
    this.#emit('close', { code: end.code, reason: end.reason });
    const decision = decide(end);
    if (decision.kind === 'fatal') this.#stopFatal(decision.error, decision.info);
  }

  #listener(): ConnectionListener {
    return {
      upgraded: () => void this.#sm.to('authenticating'),
      authenticated: () => {
        if (!this.#sm.to('open')) return;
        this.#o.backoff.connected(this.#o.clock.now());
        const terms = this.#conn?.ackTerms;
        const acks = terms !== undefined;
        if (terms !== undefined) this.#acks.maxBatch = Math.max(1, Math.floor(terms.window / 4));
        this.#o.logger.info('WebSocket open', { attempt: this.#connections, acks });
        if (this.#o.acks && !acks && !this.#toldNoAcks) {
          this.#toldNoAcks = true;
          this.#o.logger.warn(
            'the service does not acknowledge WebSocket deliveries: an event in flight when a connection dies can be lost',
          );
        }
        this.#settle();
        this.#emit('open', { attempt: this.#o.backoff.attempt + 1, acks });
      },
      frame: (parsed) => routeOpenFrame(parsed, (event, ...args) => this.#emit(event, ...args)),
      protocolError: (error) => {
        this.#o.logger.warn('invalid WebSocket frame dropped', { code: error.code });
        this.#emit('protocolError', error);
      },
      sessionInvalidated: () => this.#emit('sessionInvalidated'),
      authError: (reason) => {
        this.#o.logger.warn('WebSocket authentication refused', { reason });
        this.#emit('authError', { reason, terminal: isTerminalAuthError(reason), duringAuth: true });
      },
    };
  }
}

/**
 * Creates a WebSocket dispatcher for one agent. Call `start()` to connect.
 *
 * @throws {@link ConfigurationError} naming the first bad option.
 * @example
 * ```ts
 * const ws = createWsDispatcher({ url: agentWebSocketUrl(baseUrl), agentId, token: process.env.AGENT_TOKEN! });
 * ws.on('event', (frame) => handle(frame)).on('fatal', (err) => console.error(err.code));
 * await ws.start();
 * // …
 * await ws.close();
 * ```
 */
export function createWsDispatcher(options: WsDispatcherOptions): WsDispatcher {
  return new Dispatcher(options);
}
