/**
 * WebSocket close codes and `auth.error` reasons, and what a client does
 * about each: reconnect (with back-off) or stop for good.
 *
 * The service shows neither close codes nor `auth.error` reasons beyond
 * `invalid_token`; these are the SDK's gap decisions, shared with the
 * reference server (docs/websocket.md, "Gap decisions"). 4001–4004 match the
 * reference server's part 1; the agent codes are new.
 *
 * Terminal means: the condition will not change by reconnecting (the
 * credential is refused, the agent is suspended or banned, another
 * connection or webhook mode took over, the session was revoked). The
 * service says of AGENT_SUSPENDED and AGENT_BANNED: "Clients disconnect and
 * do not reconnect"; a deleted token forcibly disconnects its connections.
 *
 * @module
 */
import { CORE_ROUTES } from './service-names.js';

/** WebSocket close codes the service and the SDK use. 1000–1015 are RFC 6455; 4000–4999 are ours. */
export const WS_CLOSE_CODES = Object.freeze({
  /** Normal closure (also a graceful client `close()`). Reconnect when the server sent it. */
  NORMAL: 1000,
  /** Server shutting down or restarting. Reconnect. */
  GOING_AWAY: 1001,
  /** The peer broke the WebSocket protocol. Reconnect. */
  PROTOCOL_ERROR: 1002,
  /** Binary or otherwise unacceptable data. Reconnect. */
  UNSUPPORTED_DATA: 1003,
  /** No close frame (connection lost, or the client terminated a dead socket). Never sent on the wire. Reconnect. */
  ABNORMAL: 1006,
  /** Policy violation. Reconnect. */
  POLICY_VIOLATION: 1008,
  /** A frame above the size limit. Reconnect. */
  MESSAGE_TOO_BIG: 1009,
  /** Server error. Reconnect. */
  INTERNAL_ERROR: 1011,
  /** Service restart. Reconnect. */
  SERVICE_RESTART: 1012,
  /** Try again later (overload). Reconnect. */
  TRY_AGAIN_LATER: 1013,
  /** Credentials refused; sent after `auth.error`, whose `reason` decides (see {@link authErrorDisposition}). Terminal without one. */
  AUTH_FAILED: 4001,
  /** No `auth` frame within 5 s of the upgrade (after `auth.error` `auth_timeout`). Reconnect. */
  AUTH_TIMEOUT: 4002,
  /** A user access token expired without `auth.renew` (after `auth.error` `token_expired`). Reconnect with a fresh credential. */
  TOKEN_EXPIRED: 4003,
  /** The device session was revoked (after `session.invalidated`). Terminal. */
  SESSION_INVALIDATED: 4004,
  /** The agent token was deleted, rotated out (emergency, or 7-day grace ended). Terminal (AGENT_TOKEN_INVALID). */
  TOKEN_REVOKED: 4005,
  /** The agent was suspended (governance L2). Terminal (AGENT_SUSPENDED). */
  AGENT_SUSPENDED: 4010,
  /** The agent was banned (governance L3). Terminal (AGENT_BANNED). */
  AGENT_BANNED: 4011,
  /** A newer connection of the same agent replaced this one. Terminal, so two processes never fight over the slot. */
  REPLACED: 4012,
  /** A webhook address was set: the agent is now in webhook mode. Terminal. */
  WEBHOOK_MODE: 4013,
  /** The agent already has the most live sockets the service allows (after `auth.error` `too_many_connections`). Terminal. */
  TOO_MANY_CONNECTIONS: 4014,
} as const);

/** A named close code. */
export type WsCloseCode = (typeof WS_CLOSE_CODES)[keyof typeof WS_CLOSE_CODES];

/** What a client does after a close or an `auth.error`: reconnect with back-off, or stop for good. */
export type WsDisposition = 'reconnect' | 'terminal';

const TERMINAL_CLOSE_CODES: ReadonlySet<number> = new Set([
  WS_CLOSE_CODES.AUTH_FAILED,
  WS_CLOSE_CODES.SESSION_INVALIDATED,
  WS_CLOSE_CODES.TOKEN_REVOKED,
  WS_CLOSE_CODES.AGENT_SUSPENDED,
  WS_CLOSE_CODES.AGENT_BANNED,
  WS_CLOSE_CODES.REPLACED,
  WS_CLOSE_CODES.WEBHOOK_MODE,
  WS_CLOSE_CODES.TOO_MANY_CONNECTIONS,
]);

/**
 * True when a close with `code` means "do not reconnect". Every other code,
 * unknown 4xxx codes included, reconnects with back-off.
 *
 * @example
 * ```ts
 * isTerminalClose(4010); // true: agent suspended
 * isTerminalClose(1001); // false: server restart, reconnect
 * ```
 */
export function isTerminalClose(code: number): boolean {
  return TERMINAL_CLOSE_CODES.has(code);
}

/** What to do after a close with `code`. */
export function closeDisposition(code: number): WsDisposition {
  return isTerminalClose(code) ? 'terminal' : 'reconnect';
}

/** `auth.error` reasons (the service names only `invalid_token`; the rest are gap decisions). */
export const WS_AUTH_ERROR_REASONS = Object.freeze({
  /** The token is wrong, revoked, expired or rotated out. Terminal. */
  INVALID_TOKEN: 'invalid_token',
  /** The token was revoked (deleted, or emergency rotation) while connected. Terminal. */
  TOKEN_REVOKED: 'token_revoked',
  /** A user access token expired (answer to `auth` or `auth.renew`). Terminal during authentication. */
  TOKEN_EXPIRED: 'token_expired',
  /** The first frame was not a well-formed `auth` frame. Terminal: resending it cannot help. */
  INVALID_FRAME: 'invalid_frame',
  /** `auth.renew` carried a token of another user or device; the connection stays on the old token. Not terminal. */
  DEVICE_MISMATCH: 'device_mismatch',
  /** No `auth` frame within 5 s of the upgrade. Reconnect. */
  AUTH_TIMEOUT: 'auth_timeout',
  /** The agent is suspended (governance L2). Terminal. */
  AGENT_SUSPENDED: 'agent_suspended',
  /** The agent is banned (governance L3). Terminal. */
  AGENT_BANNED: 'agent_banned',
  /** The agent's registered keys differ from the client's (AGENT_KEYS_MISMATCH). Terminal. */
  KEYS_MISMATCH: 'keys_mismatch',
  /** The agent is in webhook mode; WebSocket connections are refused. Terminal. */
  WEBHOOK_MODE: 'webhook_mode',
  /** The agent already has the most live sockets allowed (copies sharing delivery). Terminal. */
  TOO_MANY_CONNECTIONS: 'too_many_connections',
  /** Too many connection attempts. Reconnect with back-off. */
  RATE_LIMITED: 'rate_limited',
  /** The server failed while checking the credential. Reconnect with back-off. */
  INTERNAL_ERROR: 'internal_error',
} as const);

/** A named `auth.error` reason. */
export type WsAuthErrorReason = (typeof WS_AUTH_ERROR_REASONS)[keyof typeof WS_AUTH_ERROR_REASONS];

const RECONNECT_REASONS: ReadonlySet<string> = new Set([
  WS_AUTH_ERROR_REASONS.AUTH_TIMEOUT,
  WS_AUTH_ERROR_REASONS.RATE_LIMITED,
  WS_AUTH_ERROR_REASONS.INTERNAL_ERROR,
  WS_AUTH_ERROR_REASONS.DEVICE_MISMATCH,
]);

/**
 * True when an `auth.error` with `reason` means "do not reconnect".
 * Unknown reasons are terminal: an auth failure the SDK does not understand
 * must not turn into a loop of refused credentials.
 *
 * @example
 * ```ts
 * isTerminalAuthError('invalid_token'); // true
 * isTerminalAuthError('auth_timeout');  // false
 * ```
 */
export function isTerminalAuthError(reason: string): boolean {
  return !RECONNECT_REASONS.has(reason);
}

/** What to do after an `auth.error` with `reason`. */
export function authErrorDisposition(reason: string): WsDisposition {
  return isTerminalAuthError(reason) ? 'terminal' : 'reconnect';
}

/**
 * The close code the server uses right after an `auth.error` with each named
 * reason. Its disposition always equals the reason's, so a client that
 * misses the `auth.error` frame still does the right thing.
 * `device_mismatch` answers `auth.renew` only and closes nothing.
 */
export const AUTH_ERROR_CLOSE_CODES: Readonly<Record<Exclude<WsAuthErrorReason, 'device_mismatch'>, number>> =
  Object.freeze({
    invalid_token: WS_CLOSE_CODES.AUTH_FAILED,
    token_revoked: WS_CLOSE_CODES.TOKEN_REVOKED,
    token_expired: WS_CLOSE_CODES.AUTH_FAILED,
    invalid_frame: WS_CLOSE_CODES.AUTH_FAILED,
    auth_timeout: WS_CLOSE_CODES.AUTH_TIMEOUT,
    agent_suspended: WS_CLOSE_CODES.AGENT_SUSPENDED,
    agent_banned: WS_CLOSE_CODES.AGENT_BANNED,
    keys_mismatch: WS_CLOSE_CODES.AUTH_FAILED,
    webhook_mode: WS_CLOSE_CODES.WEBHOOK_MODE,
    too_many_connections: WS_CLOSE_CODES.TOO_MANY_CONNECTIONS,
    rate_limited: WS_CLOSE_CODES.TRY_AGAIN_LATER,
    internal_error: WS_CLOSE_CODES.INTERNAL_ERROR,
  });

/**
 * The catalogue code matching a terminal close code or `auth.error` reason,
 * when there is one (AGENT_TOKEN_INVALID, AGENT_SUSPENDED, AGENT_BANNED,
 * AGENT_KEYS_MISMATCH, TOKEN_EXPIRED); otherwise undefined.
 */
export function catalogueCodeForWsFailure(failure: {
  readonly closeCode?: number | undefined;
  readonly authError?: string | undefined;
}):
  | 'AGENT_TOKEN_INVALID'
  | 'AGENT_SUSPENDED'
  | 'AGENT_BANNED'
  | 'AGENT_KEYS_MISMATCH'
  | 'TOKEN_EXPIRED'
  | undefined {
  switch (failure.authError) {
    case WS_AUTH_ERROR_REASONS.INVALID_TOKEN:
    case WS_AUTH_ERROR_REASONS.TOKEN_REVOKED:
      return 'AGENT_TOKEN_INVALID';
    case WS_AUTH_ERROR_REASONS.AGENT_SUSPENDED:
      return 'AGENT_SUSPENDED';
    case WS_AUTH_ERROR_REASONS.AGENT_BANNED:
      return 'AGENT_BANNED';
    case WS_AUTH_ERROR_REASONS.KEYS_MISMATCH:
      return 'AGENT_KEYS_MISMATCH';
    case WS_AUTH_ERROR_REASONS.TOKEN_EXPIRED:
      return 'TOKEN_EXPIRED';
    default:
      break;
  }
  switch (failure.closeCode) {
    case WS_CLOSE_CODES.AUTH_FAILED:
    case WS_CLOSE_CODES.TOKEN_REVOKED:
      return 'AGENT_TOKEN_INVALID';
    case WS_CLOSE_CODES.AGENT_SUSPENDED:
      return 'AGENT_SUSPENDED';
    case WS_CLOSE_CODES.AGENT_BANNED:
      return 'AGENT_BANNED';
    default:
      return undefined;
  }
}

/**
 * The agent WebSocket address for a service base URL: the same origin with
 * the `ws`/`wss` scheme and the path `/ws` appended to the base path (the
 * reference server's single WebSocket address; the first frame tells an
 * agent from a user). No query, no credential: the token goes in the first
 * frame.
 *
 * @throws `TypeError` when `baseUrl` is not an absolute http(s) or ws(s) URL.
 * @example
 * ```ts
 * agentWebSocketUrl('https://api.example.com'); // 'wss://api.example.com/ws'
 * ```
 */
export function agentWebSocketUrl(baseUrl: string | URL): string {
  const url = new URL(String(baseUrl));
  const scheme = { 'http:': 'ws:', 'https:': 'wss:', 'ws:': 'ws:', 'wss:': 'wss:' }[url.protocol];
  if (scheme === undefined) throw new TypeError('baseUrl must be an http(s) or ws(s) URL');
  url.protocol = scheme;
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${WS_AGENT_PATH}`;
  url.search = '';
  url.hash = '';
  url.username = '';
  url.password = '';
  return url.href;
}

/** Path of the WebSocket endpoint, relative to the base URL. */
export const WS_AGENT_PATH = CORE_ROUTES.webSocket.path;
