/**
 * The WebSocket hub: every connection, the first-frame authentication
 * (5 s deadline on the server's clock), and the dispatch of later frames by
 * `type`. Authenticators and frame handlers are registered, so part 2 adds
 * agent connections without touching this file.
 *
 * @module
 */
import type { Clock } from 'agent-messaging-sdk/protocol';
import { LIMITS } from 'agent-messaging-sdk/protocol';
import type { ServerLogger } from '../options.js';
import { HubConnection, type Principal, type SocketLike } from './connection.js';
import { AUTH_ERROR_CLOSE_CODES } from 'agent-messaging-sdk/protocol';
import { authErrorFrame, errorFrame, WS_CLOSE, type AuthErrorReason } from './frames.js';

/** A parsed client frame. */
export type ClientFrame = Readonly<Record<string, unknown>> & { readonly type: string };

/** Outcome of a first-frame authentication. */
export type AuthOutcome =
  | {
      readonly ok: true;
      readonly principal: Principal;
      /** Fields added to `auth.ok` (what the connection negotiated). */
      readonly negotiated?: Readonly<Record<string, unknown>>;
    }
  | {
      readonly ok: false;
      readonly reason: AuthErrorReason;
      /** Close code after `auth.error`. @defaultValue the SDK's `AUTH_ERROR_CLOSE_CODES[reason]`, else 4001 */
      readonly closeCode?: number;
    };

/** Authenticates one kind of principal from the first frame. */
export interface ConnectionAuthenticator {
  /** True when this authenticator handles `frame` (an `auth` frame). */
  matches(frame: ClientFrame): boolean;
  /** Checks the credentials. */
  authenticate(frame: ClientFrame): Promise<AuthOutcome>;
  /** Runs after `auth.ok` was sent (e.g. to set expiry timers). */
  onOpen?(conn: HubConnection): void;
  /** Runs once when a connection this authenticator opened has closed. */
  onClose?(conn: HubConnection): void;
}

/** Handles one frame type on open connections. */
export type FrameHandler = (frame: ClientFrame, conn: HubConnection) => void | Promise<void>;

/** What the transport binding calls for one connection. */
export interface ConnectionSink {
  /** A text frame arrived. */
  receive(text: string): void;
  /** A binary frame arrived (not supported). */
  receiveBinary(): void;
  /** The peer closed or the socket failed. */
  closed(): void;
}

const MAX_QUEUED = 16;

/** The close code that follows an `auth.error` with `reason` (shared with the SDK). */
export function closeCodeAfter(reason: AuthErrorReason): number {
  return reason === 'device_mismatch' ? WS_CLOSE.AUTH_FAILED : AUTH_ERROR_CLOSE_CODES[reason];
}

function parseFrame(text: string): ClientFrame | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const type = (value as Record<string, unknown>)['type'];
  return typeof type === 'string' && type.length > 0 ? (value as ClientFrame) : undefined;
}

/** The hub. */
export class WsHub {
  readonly #clock: Clock;
  readonly #logger: ServerLogger;
  readonly #connections = new Set<HubConnection>();
  readonly #authenticators: ConnectionAuthenticator[] = [];
  readonly #handlers = new Map<string, FrameHandler>();

  constructor(clock: Clock, logger: ServerLogger) {
    this.#clock = clock;
    this.#logger = logger;
  }

  /** Registers an authenticator for first frames. */
  addAuthenticator(authenticator: ConnectionAuthenticator): void {
    this.#authenticators.push(authenticator);
  }

  /** Registers the handler of one frame type (after authentication). */
  handle(type: string, handler: FrameHandler): void {
    if (this.#handlers.has(type)) throw new Error(`Duplicate frame handler for ${type}`);
    this.#handlers.set(type, handler);
  }

  /** Open connections, optionally filtered. */
  connections(filter?: (conn: HubConnection) => boolean): HubConnection[] {
    return [...this.#connections].filter((c) => filter === undefined || filter(c));
  }

  /**
   * Sends `session.invalidated` to every connection of the device and closes
   * them. Returns how many were closed.
   */
  invalidateDevice(userId: string, deviceId: string): number {
    const hit = this.connections(
      (c) =>
        c.principal?.kind === 'user' && c.principal.userId === userId && c.principal.deviceId === deviceId,
    );
    for (const conn of hit) {
      conn.send({ type: 'session.invalidated', device_id: deviceId });
      conn.close(WS_CLOSE.SESSION_INVALIDATED, 'session_invalidated');
    }
    return hit.length;
  }

  /** Closes every connection (server shutdown). */
  closeAll(): void {
    for (const conn of [...this.#connections]) conn.close(WS_CLOSE.GOING_AWAY, 'server_shutdown');
  }

  /** Accepts a new socket; the binding feeds the returned sink. */
  accept(socket: SocketLike): ConnectionSink {
    let opener: ConnectionAuthenticator | undefined;
    const conn = new HubConnection(socket, this.#clock, (c) => {
      this.#connections.delete(c);
      try {
        opener?.onClose?.(c);
      } catch (err) {
        this.#logger.error(`ws close handler failed: ${(err as Error).name}`);
      }
    });
    this.#connections.add(conn);
    const queue: string[] = [];
    conn.setTimer('auth_deadline', LIMITS.WS_AUTH_DEADLINE_MS, () => {
      conn.send(authErrorFrame('auth_timeout'));
      conn.close(WS_CLOSE.AUTH_TIMEOUT, 'auth_timeout');
    });
    return {
      receive: (text) => {
        if (conn.state === 'awaiting_auth')
          void this.#authenticate(conn, text, queue, (a) => {
            opener = a;
          });
        else if (conn.state === 'authenticating') {
          if (queue.length < MAX_QUEUED) queue.push(text);
        } else if (conn.state === 'open') void this.#dispatch(conn, text);
      },
      receiveBinary: () => conn.close(WS_CLOSE.UNSUPPORTED_DATA, 'text_frames_only'),
      closed: () => conn.closedByPeer(),
    };
  }

  /** `opened` learns the authenticator that opened the connection, before `onOpen` runs. */
  async #authenticate(
    conn: HubConnection,
    text: string,
    queue: string[],
    opened: (authenticator: ConnectionAuthenticator | undefined) => void,
  ): Promise<void> {
    conn.beginAuthentication();
    const frame = parseFrame(text);
    const authenticator =
      frame?.type === 'auth' ? this.#authenticators.find((a) => a.matches(frame)) : undefined;
    let outcome: AuthOutcome = { ok: false, reason: 'invalid_frame' };
    if (frame !== undefined && authenticator !== undefined) {
      try {
        outcome = await authenticator.authenticate(frame);
      } catch (err) {
        this.#logger.error(`ws authentication failed unexpectedly: ${(err as Error).name}`);
        outcome = { ok: false, reason: 'internal_error' };
      }
    }
    if (conn.state === 'closed') return;
    conn.clearTimer('auth_deadline');
    if (!outcome.ok) {
      conn.send(authErrorFrame(outcome.reason));
      conn.close(outcome.closeCode ?? closeCodeAfter(outcome.reason), outcome.reason);
      return;
    }
    const negotiated = outcome.negotiated ?? {};
    opened(authenticator);
    conn.open(outcome.principal, negotiated);
    conn.send({ ...negotiated, type: 'auth.ok' });
    authenticator?.onOpen?.(conn);
    for (const queued of queue.splice(0)) await this.#dispatch(conn, queued);
  }

  async #dispatch(conn: HubConnection, text: string): Promise<void> {
    const frame = parseFrame(text);
    if (frame === undefined) {
      conn.send(
        errorFrame('VALIDATION_ERROR', 'Frames must be JSON objects with a string type.', {
          reason: 'invalid_frame',
        }),
      );
      return;
    }
    const handler = this.#handlers.get(frame.type);
    if (handler === undefined) {
      conn.send(errorFrame('VALIDATION_ERROR', 'Unknown frame type.', { reason: 'unknown_frame_type' }));
      return;
    }
    try {
      await handler(frame, conn);
    } catch (err) {
      this.#logger.error(`ws frame handler failed: ${(err as Error).name}`);
      conn.send(errorFrame('INTERNAL_ERROR', 'The server failed to handle the frame.'));
    }
  }
}
