/**
 * WebSocket close codes and the small frames the reference server sends.
 * The service interface shows neither the address nor close codes; these
 * are the reference server's choices (docs/reference-server.md).
 *
 * @module
 */
import { errorBody } from '../../core/protocol/error-object.js';

/** The one WebSocket address for users and agents: the first frame decides who connects. */
export const WS_PATH = '/ws';

/** Largest accepted frame, in bytes. */
export const WS_MAX_FRAME_BYTES = 65_536;

/** Close codes (4000–4999 are application-defined). */
export const WS_CLOSE = Object.freeze({
  /** Server shutting down. */
  GOING_AWAY: 1001,
  /** Binary frame or oversize frame. */
  UNSUPPORTED_DATA: 1003,
  /** First frame was not a valid auth frame, or credentials were refused (after `auth.error`). */
  AUTH_FAILED: 4001,
  /** No auth frame within 5 s of the upgrade. */
  AUTH_TIMEOUT: 4002,
  /** The access token expired without `auth.renew` (after `auth.error` reason `token_expired`). */
  TOKEN_EXPIRED: 4003,
  /** The device session was revoked (after `session.invalidated`). */
  SESSION_INVALIDATED: 4004,
} as const);

/** `auth.error` reasons the reference server sends. */
export type AuthErrorReason =
  'invalid_token' | 'token_expired' | 'invalid_frame' | 'device_mismatch' | 'auth_timeout';

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
  return { type: 'error', ...errorBody(code, message, params) };
}
