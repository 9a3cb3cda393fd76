/**
 * WebSocket close codes and the small frames the reference server sends.
 * The service interface shows neither the address nor close codes; these
 * are the reference server's choices (docs/reference-server.md).
 *
 * @module
 */
import { errorBody, toErrorCode } from 'agent-messaging-sdk/protocol';
import { WS_CLOSE_CODES, type WsAuthErrorReason } from 'agent-messaging-sdk/protocol';
import { CORE_ROUTES } from 'agent-messaging-sdk/protocol';

/** The one WebSocket address for users and agents: the first frame decides who connects. */
export const WS_PATH = CORE_ROUTES.webSocket.path;

/** Largest accepted frame, in bytes. */
export const WS_MAX_FRAME_BYTES = 65_536;

/**
 * Close codes (4000–4999 are application-defined), the values the SDK
 * shares (`WS_CLOSE_CODES` of `core/protocol/ws-close.ts`).
 */
export const WS_CLOSE = Object.freeze({
  /** Server shutting down. */
  GOING_AWAY: WS_CLOSE_CODES.GOING_AWAY,
  /** Binary frame or oversize frame. */
  UNSUPPORTED_DATA: WS_CLOSE_CODES.UNSUPPORTED_DATA,
  /** First frame was not a valid auth frame, or credentials were refused (after `auth.error`). */
  AUTH_FAILED: WS_CLOSE_CODES.AUTH_FAILED,
  /** No auth frame within 5 s of the upgrade. */
  AUTH_TIMEOUT: WS_CLOSE_CODES.AUTH_TIMEOUT,
  /** The access token expired without `auth.renew` (after `auth.error` reason `token_expired`). */
  TOKEN_EXPIRED: WS_CLOSE_CODES.TOKEN_EXPIRED,
  /** The device session was revoked (after `session.invalidated`). */
  SESSION_INVALIDATED: WS_CLOSE_CODES.SESSION_INVALIDATED,
  /** The agent token was deleted or rotated out (emergency, or its grace ended). */
  TOKEN_REVOKED: WS_CLOSE_CODES.TOKEN_REVOKED,
  /** The agent was suspended (L2). */
  AGENT_SUSPENDED: WS_CLOSE_CODES.AGENT_SUSPENDED,
  /** The agent was banned (L3). */
  AGENT_BANNED: WS_CLOSE_CODES.AGENT_BANNED,
  /** A newer connection of the same agent replaced this one. */
  REPLACED: WS_CLOSE_CODES.REPLACED,
  /** A webhook address was registered: the agent is in webhook mode. */
  WEBHOOK_MODE: WS_CLOSE_CODES.WEBHOOK_MODE,
  /** The agent already has `MAX_AGENT_SOCKETS` live sockets (after `auth.error` `too_many_connections`). */
  TOO_MANY_CONNECTIONS: WS_CLOSE_CODES.TOO_MANY_CONNECTIONS,
} as const);

/** `auth.error` reasons the reference server sends (the SDK's `WS_AUTH_ERROR_REASONS`). */
export type AuthErrorReason = WsAuthErrorReason;

/** A frame the server sends; always an object with `type`. */
export interface OutgoingFrame {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** `auth.error` with a reason. */
export function authErrorFrame(reason: AuthErrorReason): OutgoingFrame {
  return { type: 'auth.error', reason };
}

/** `error` frame (the service's error object under `error`) for a frame the server could not act on. */
export function errorFrame(
  code: string,
  message: string,
  params: Record<string, unknown> = {},
): OutgoingFrame {
  return { type: 'error', ...errorBody(toErrorCode(code), message, params) };
}
