/**
 * One WebSocket connection as the hub sees it: a socket-like sink, a state,
 * the authenticated principal, and named timers on the server's clock.
 * Transport-independent: the node binding adapts a `ws` socket to
 * {@link SocketLike}.
 *
 * @module
 */
import type { Clock, TimerHandle } from 'agent-messaging-sdk/protocol';
import type { AnyPrincipal } from '../http/types.js';
import type { OutgoingFrame } from './frames.js';

/** Who a connection authenticated as: a user (access token) or an agent (agent token). */
export type Principal = AnyPrincipal;

/** The minimum a transport socket must offer. */
export interface SocketLike {
  /** Sends a text frame; `false` when the socket can no longer send (closing). */
  send(text: string): boolean | void;
  close(code: number, reason: string): void;
}

/** Connection states: waiting for the first frame, checking it, open, closed. */
export type ConnectionState = 'awaiting_auth' | 'authenticating' | 'open' | 'closed';

let nextConnectionId = 1;

/** A connection of the hub. */
export class HubConnection {
  /** Unique per process. */
  readonly id = nextConnectionId++;
  #state: ConnectionState = 'awaiting_auth';
  #principal: Principal | undefined;
  #negotiated: Readonly<Record<string, unknown>> = {};
  readonly #timers = new Map<string, TimerHandle>();
  readonly #socket: SocketLike;
  readonly #clock: Clock;
  readonly #onClosed: (conn: HubConnection) => void;

  constructor(socket: SocketLike, clock: Clock, onClosed: (conn: HubConnection) => void) {
    this.#socket = socket;
    this.#clock = clock;
    this.#onClosed = onClosed;
  }

  /** Current state. */
  get state(): ConnectionState {
    return this.#state;
  }

  /** The authenticated principal, once open. */
  get principal(): Principal | undefined {
    return this.#principal;
  }

  /** Marks the first frame as being checked. */
  beginAuthentication(): void {
    if (this.#state === 'awaiting_auth') this.#state = 'authenticating';
  }

  /** Fields the server added to `auth.ok` (what was negotiated, e.g. `ack`). */
  get negotiated(): Readonly<Record<string, unknown>> {
    return this.#negotiated;
  }

  /** Opens the connection for `principal`, with the fields `auth.ok` carries. */
  open(principal: Principal, negotiated: Readonly<Record<string, unknown>> = {}): void {
    if (this.#state === 'closed') return;
    this.#state = 'open';
    this.#principal = principal;
    this.#negotiated = negotiated;
  }

  /** Replaces the principal (after `auth.renew`). */
  updatePrincipal(principal: Principal): void {
    if (this.#state === 'open') this.#principal = principal;
  }

  /** Sends a frame; ignored once closed. Returns whether the socket took it. */
  send(frame: OutgoingFrame): boolean {
    if (this.#state === 'closed') return false;
    return this.#socket.send(JSON.stringify(frame)) !== false;
  }

  /** Sends an already serialised frame (relays that build the text once for many connections). */
  sendText(text: string): boolean {
    if (this.#state === 'closed') return false;
    return this.#socket.send(text) !== false;
  }

  /** Closes with `code`; clears every timer. Idempotent. */
  close(code: number, reason: string): void {
    if (this.#state === 'closed') return;
    this.#markClosed();
    this.#socket.close(code, reason);
  }

  /** Called by the binding when the peer went away. */
  closedByPeer(): void {
    if (this.#state !== 'closed') this.#markClosed();
  }

  /** Sets (or replaces) the timer called `name`. */
  setTimer(name: string, delayMs: number, fn: () => void): void {
    this.clearTimer(name);
    if (this.#state === 'closed') return;
    const handle = this.#clock.setTimeout(
      () => {
        this.#timers.delete(name);
        fn();
      },
      Math.max(0, delayMs),
      // Deadlines of a connection never keep the process alive on their own.
      { background: true },
    );
    this.#timers.set(name, handle);
  }

  /** Cancels the timer called `name`, if set. */
  clearTimer(name: string): void {
    const handle = this.#timers.get(name);
    if (handle === undefined) return;
    this.#clock.clearTimeout(handle);
    this.#timers.delete(name);
  }

  #markClosed(): void {
    this.#state = 'closed';
    for (const handle of this.#timers.values()) this.#clock.clearTimeout(handle);
    this.#timers.clear();
    this.#onClosed(this);
  }
}
