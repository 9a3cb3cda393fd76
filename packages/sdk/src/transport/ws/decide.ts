/**
 * What the dispatcher does when a connection ends: reconnect, or stop for
 * good with a typed error. Order of precedence: a client `close()`, then
 * `session.invalidated`, then the `auth.error` reason, then the close code
 * (a close the client caused itself, e.g. a dead connection, always reconnects).
 *
 * @module
 */
import type { AmsError } from '../../core/errors/base.js';
import { statusOf } from '../../core/errors/codes.js';
import { ServiceError } from '../../core/errors/service-error.js';
import { TransportError } from '../../core/errors/transport-error.js';
import {
  catalogueCodeForWsFailure,
  isTerminalAuthError,
  isTerminalClose,
  WS_AUTH_ERROR_REASONS,
  WS_CLOSE_CODES,
} from '../../core/protocol/ws-close.js';
import type { ConnectionEnd } from './connection.js';
import type { FatalInfo } from './events.js';

/** The outcome of a connection's end. */
export type EndDecision =
  | { readonly kind: 'closed' }
  | { readonly kind: 'reconnect' }
  | { readonly kind: 'fatal'; readonly error: AmsError; readonly info: FatalInfo };

function describe(info: FatalInfo): string {
  if (info.sessionInvalidated) return 'the device session was revoked';
  if (info.authError !== undefined) return `the service refused authentication (${info.authError})`;
  if (info.closeCode === WS_CLOSE_CODES.REPLACED)
    return 'another process connected as this agent (close 4012 "replaced")';
  if (info.closeCode === WS_CLOSE_CODES.TOO_MANY_CONNECTIONS)
    return 'the agent already has the most live sockets the service allows (close 4014 "too_many_connections")';
  return `the service closed the connection with code ${info.closeCode}`;
}

/**
 * The typed error of a terminal end: a ServiceError with a catalogue code
 * when one fits; TRANSPORT_REPLACED after a takeover (4012) and
 * TRANSPORT_CONNECTION_LIMIT over the socket cap (4014); else TRANSPORT_CLOSED.
 */
export function fatalError(info: FatalInfo): AmsError {
  const message = `WebSocket stopped for good: ${describe(info)}.`;
  const code = info.sessionInvalidated
    ? undefined
    : catalogueCodeForWsFailure({ closeCode: info.closeCode, authError: info.authError });
  if (code !== undefined) {
    return new ServiceError({
      code,
      status: statusOf(code),
      message,
      params: {
        close_code: info.closeCode,
        ...(info.authError === undefined ? {} : { reason: info.authError }),
      },
    });
  }
  if (info.closeCode === WS_CLOSE_CODES.REPLACED && info.authError === undefined)
    return new TransportError({ code: 'TRANSPORT_REPLACED', message });
  if (
    info.closeCode === WS_CLOSE_CODES.TOO_MANY_CONNECTIONS ||
    info.authError === WS_AUTH_ERROR_REASONS.TOO_MANY_CONNECTIONS
  )
    return new TransportError({ code: 'TRANSPORT_CONNECTION_LIMIT', message });
  return new TransportError({ code: 'TRANSPORT_CLOSED', message });
}

/** Decides what follows `end`. */
export function decide(end: ConnectionEnd): EndDecision {
  if (end.closedByClient && !end.sessionInvalidated) return { kind: 'closed' };
  const info: FatalInfo = {
    closeCode: end.code,
    closeReason: end.reason,
    authError: end.authError,
    sessionInvalidated: end.sessionInvalidated,
  };
  const terminal =
    end.sessionInvalidated ||
    (end.authError !== undefined
      ? isTerminalAuthError(end.authError)
      : end.failure === undefined && isTerminalClose(end.code));
  return terminal ? { kind: 'fatal', error: fatalError(info), info } : { kind: 'reconnect' };
}
