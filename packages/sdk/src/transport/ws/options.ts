/**
 * Options of the WebSocket dispatcher, their defaults in one place, and
 * their validation at construction.
 *
 * @module
 */
import { systemClock, type Clock } from '../../core/clock.js';
import { ConfigurationError } from '../../core/errors/configuration-error.js';
import { redactingLogger, silentLogger, type Logger } from '../../core/logger.js';
import { IdentifierSchema } from '../../core/protocol/primitives.js';
import { createBackoff, type Backoff, type BackoffOptions } from './backoff.js';
import { resolveHeartbeat, type HeartbeatOptions } from './heartbeat.js';
import type { WebSocketConstructor } from './socket.js';

/** Options of {@link createWsDispatcher}. */
export interface WsDispatcherOptions {
  /** The agent WebSocket address, `ws:` or `wss:` (see `agentWebSocketUrl`). Must not carry a credential. */
  url: string | URL;
  /** The agent's identifier, sent in the `auth` frame. */
  agentId: string;
  /** The agent token (`hsk_…`). Give this or `credentials`. */
  token?: string;
  /** Gives the token for each connection attempt (e.g. after a rotation). Give this or `token`. */
  credentials?: () => string | Promise<string>;
  /** The WebSocket constructor. @defaultValue the `ws` package, loaded on first connect */
  WebSocket?: WebSocketConstructor;
  /** Source of time and timers (back-off, heartbeat, auth timeout). @defaultValue `systemClock` */
  clock?: Clock;
  /** Random source in [0, 1) for the back-off jitter. @defaultValue `Math.random` */
  random?: () => number;
  /** Where log lines go (redacted first). @defaultValue `silentLogger` */
  logger?: Logger;
  /** Reconnect back-off. @defaultValue `{ baseMs: 1000, capMs: 30000, stableAfterMs: 30000 }` */
  backoff?: Omit<BackoffOptions, 'random'>;
  /** Client pings and the dead-connection check. @defaultValue `{ intervalMs: 10000, timeoutMs: 25000 }` */
  heartbeat?: HeartbeatOptions;
  /** From `new WebSocket()` to the upgrade, ms. @defaultValue `10000` */
  connectTimeoutMs?: number;
  /** From the upgrade to `auth.ok` / `auth.error`, ms. @defaultValue `10000` */
  authTimeoutMs?: number;
  /** How long to wait for the socket's close after asking for it, ms. @defaultValue `5000` */
  closeTimeoutMs?: number;
  /**
   * Ask the service for acknowledged delivery (`ack: true` in `auth`). When
   * `auth.ok` grants it, call {@link WsDispatcher.ack} for every event once
   * it is done with; the service sends unacknowledged events again.
   * @defaultValue `true`
   */
  acks?: boolean;
  /**
   * Share the agent's delivery with its other live sockets (`share: true`
   * in `auth`): copies of one agent then run side by side, each
   * conversation going to one of them, instead of the newer replacing the
   * older (docs/production.md).
   * @defaultValue `false`
   */
  share?: boolean;
}

/** Every default of the dispatcher. */
export const DEFAULT_WS_OPTIONS = {
  connectTimeoutMs: 10_000,
  authTimeoutMs: 10_000,
  closeTimeoutMs: 5_000,
} as const;

/** Options after defaults and validation. */
export interface ResolvedWsOptions {
  readonly url: string;
  readonly agentId: string;
  readonly token: (() => string | Promise<string>) | undefined;
  readonly staticToken: string | undefined;
  readonly WebSocket: WebSocketConstructor | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly backoff: Backoff;
  readonly heartbeat: Required<HeartbeatOptions>;
  readonly connectTimeoutMs: number;
  readonly authTimeoutMs: number;
  readonly closeTimeoutMs: number;
  readonly acks: boolean;
  readonly share: boolean;
}

function bad(option: string, rule: string): ConfigurationError {
  return new ConfigurationError({ option, message: `Option "${option}" ${rule}.` });
}

function urlOf(value: string | URL): string {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch (cause) {
    throw new ConfigurationError({
      option: 'url',
      message: 'Option "url" must be an absolute ws(s) URL.',
      cause,
    });
  }
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') throw bad('url', 'must be an absolute ws(s) URL');
  // The token travels in the first frame only; a URL with credentials or a query is refused outright.
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    throw bad('url', 'must not carry credentials, a query or a fragment');
  }
  return url.href;
}

function duration(value: number | undefined, fallback: number, option: string): number {
  const v = value ?? fallback;
  if (!(Number.isFinite(v) && v > 0)) throw bad(option, 'must be a positive number of ms');
  return v;
}

/**
 * Applies defaults and checks every option.
 *
 * @throws {@link ConfigurationError} naming the first bad option.
 */
export function resolveWsOptions(o: WsDispatcherOptions): ResolvedWsOptions {
  if (!IdentifierSchema.safeParse(o.agentId).success) throw bad('agentId', 'must be a non-empty identifier');
  if ((o.token === undefined) === (o.credentials === undefined))
    throw bad('token', 'or "credentials" must be given (exactly one)');
  if (o.token !== undefined && (typeof o.token !== 'string' || o.token.length === 0))
    throw bad('token', 'must be a non-empty string');
  if (o.credentials !== undefined && typeof o.credentials !== 'function')
    throw bad('credentials', 'must be a function');
  if (o.WebSocket !== undefined && typeof o.WebSocket !== 'function')
    throw bad('WebSocket', 'must be a constructor');
  const d = DEFAULT_WS_OPTIONS;
  return {
    url: urlOf(o.url),
    agentId: o.agentId,
    token: o.credentials,
    staticToken: o.token,
    WebSocket: o.WebSocket,
    clock: o.clock ?? systemClock,
    logger: redactingLogger(o.logger ?? silentLogger),
    backoff: createBackoff({ ...o.backoff, ...(o.random === undefined ? {} : { random: o.random }) }),
    heartbeat: resolveHeartbeat(o.heartbeat),
    connectTimeoutMs: duration(o.connectTimeoutMs, d.connectTimeoutMs, 'connectTimeoutMs'),
    authTimeoutMs: duration(o.authTimeoutMs, d.authTimeoutMs, 'authTimeoutMs'),
    closeTimeoutMs: duration(o.closeTimeoutMs, d.closeTimeoutMs, 'closeTimeoutMs'),
    acks: o.acks ?? true,
    share: o.share ?? false,
  };
}
