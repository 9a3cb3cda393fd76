/**
 * The types of one WebSocket connection: how it ended, its callbacks and
 * its settings (see `connection.ts`).
 *
 * @module
 */
import type { Clock } from '../../core/clock.js';
import type { AmsError } from '../../core/errors/base.js';
import type { Logger } from '../../core/logger.js';
import type { ParsedWsFrame } from '../../core/protocol/ws-frames.js';
import type { HeartbeatOptions } from './heartbeat.js';
import type { WebSocketConstructor } from './socket.js';

/** A failure the client itself detected. */
export type ClientFailure = 'connect_timeout' | 'auth_timeout' | 'dead' | 'socket_error';

/** How a connection ended. */
export interface ConnectionEnd {
  /** Close code from the server's close frame; 1006 when there was none. */
  readonly code: number;
  /** Close reason text (may be empty). */
  readonly reason: string;
  /** True when `auth.ok` arrived. */
  readonly authenticated: boolean;
  /** `reason` of an `auth.error` received before `auth.ok`. */
  readonly authError: string | undefined;
  /** True when `session.invalidated` arrived. */
  readonly sessionInvalidated: boolean;
  /** Set when the client cut the connection itself. */
  readonly failure: ClientFailure | undefined;
  /**
   * True when the client closed the connection itself: {@link WsDispatcher.close}
   * was called, or the client answered `session.invalidated` with a close.
   */
  readonly closedByClient: boolean;
}

/** Callbacks of a connection (all synchronous). */
export interface ConnectionListener {
  /** The upgrade completed and the `auth` frame was sent. */
  upgraded(): void;
  /** `auth.ok` arrived. */
  authenticated(): void;
  /** A valid frame arrived after `auth.ok` (other than `session.invalidated`). */
  frame(parsed: ParsedWsFrame): void;
  /** An invalid frame arrived; it was dropped. */
  protocolError(error: AmsError): void;
  /** `session.invalidated` arrived; the connection is closing. */
  sessionInvalidated(): void;
  /** `auth.error` answered the `auth` frame; the connection is closing. */
  authError(reason: string): void;
}

/** Settings of one connection. */
export interface ConnectionSettings {
  readonly url: string;
  readonly WebSocket: WebSocketConstructor;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly agentId: string;
  readonly token: string;
  readonly connectTimeoutMs: number;
  readonly authTimeoutMs: number;
  readonly closeTimeoutMs: number;
  readonly heartbeat: Required<HeartbeatOptions>;
  /** Ask for acknowledged delivery in the `auth` frame. */
  readonly acks: boolean;
  /** Ask to share the agent's delivery with its other live sockets (`share` in `auth`). */
  readonly share: boolean;
}
