/**
 * Events of the WebSocket dispatcher.
 *
 * @module
 */
import type { AmsError } from '../../core/errors/base.js';
import type { WsEventFrame } from '../../core/protocol/ws-frames.js';
import type { WsState } from './states.js';

/** Why the dispatcher stopped for good. */
export interface FatalInfo {
  /** Close code of the last connection (1006 when there was no close frame). */
  readonly closeCode: number;
  /** Close reason text of the last connection. */
  readonly closeReason: string;
  /** `auth.error` reason, when the service refused the credential. */
  readonly authError: string | undefined;
  /** True when the device session was revoked (`session.invalidated`). */
  readonly sessionInvalidated: boolean;
}

/** Event map of the dispatcher (event name → listener arguments). */
export interface WsDispatcherEvents {
  /**
   * Authenticated (`auth.ok`); `attempt` counts connections since the last
   * reset (1 = first); `acks` is true when the service acknowledges
   * deliveries on this connection (call `ack()` for each event).
   */
  open: [info: { readonly attempt: number; readonly acks: boolean }];
  /** An event frame (validated by `parseWsFrame`; the delivery body fields plus `delivery_id`). */
  event: [frame: WsEventFrame];
  /** A socket ended (also sockets that never opened: code 1006). */
  close: [info: { readonly code: number; readonly reason: string }];
  /** The next connection attempt comes after `delayMs`. */
  reconnecting: [info: { readonly attempt: number; readonly delayMs: number }];
  /** A terminal condition: the dispatcher stopped for good and will not reconnect. */
  fatal: [error: AmsError, info: FatalInfo];
  /** An invalid frame was dropped; the connection stays up. */
  protocolError: [error: AmsError];
  /** The service revoked the device session; the dispatcher stops. */
  sessionInvalidated: [];
  /** The credential expires soon (`auth.expiring`); call `renew()`. */
  authExpiring: [info: { readonly expiresInSeconds: number | undefined }];
  /** `auth.ok` answered an `auth.renew`. */
  renewed: [];
  /** `auth.error` arrived, during authentication or in answer to `auth.renew`. */
  authError: [info: { readonly reason: string; readonly terminal: boolean; readonly duringAuth: boolean }];
  /** A frame of a type this SDK does not know (kept as-is). */
  unknownFrame: [info: { readonly type: string; readonly frame: Readonly<Record<string, unknown>> }];
  /** The state machine moved. */
  state: [info: { readonly from: WsState; readonly to: WsState }];
}

/** An event name of the dispatcher. */
export type WsDispatcherEventName = keyof WsDispatcherEvents;
