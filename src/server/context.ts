/**
 * Everything a handler may use: options, clock, store and services. Built
 * once per server; handlers receive it with each request.
 *
 * @module
 */
import { ManualClock, systemClock, type Clock } from '../core/clock.js';
import { createAccessTokenService, type AccessTokenService } from './auth/access-token.js';
import { DevMailbox, type Mailer } from './auth/mailbox.js';
import { createPasswordHasher, type PasswordHasher } from './auth/password-hash.js';
import { DevTurnstile, type TurnstileVerifier } from './auth/turnstile.js';
import {
  resolveServerOptions,
  type ReferenceServerOptions,
  type ResolvedServerOptions,
  type ServerLogger,
} from './options.js';
import { createMemoryStore } from './store/memory.js';
import type { Store } from './store/types.js';
import { WsHub } from './ws/hub.js';

/** Server state and services. */
export interface ServerContext {
  readonly options: ResolvedServerOptions;
  /** The server's time; a {@link ManualClock} in virtual-time mode. */
  readonly clock: Clock;
  /** The clock when it is virtual. */
  readonly virtualClock: ManualClock | undefined;
  readonly store: Store;
  readonly tokens: AccessTokenService;
  readonly passwords: PasswordHasher;
  readonly mailer: Mailer;
  /** The in-memory mailbox, unless a mailer was given. */
  readonly mailbox: DevMailbox | undefined;
  readonly turnstile: TurnstileVerifier;
  /** The dev Turnstile, unless a verifier was given. */
  readonly devTurnstile: DevTurnstile | undefined;
  readonly hub: WsHub;
  readonly logger: ServerLogger;
  /** `http://host:port` once listening (WebAuthn's default origin uses it). */
  baseUrl: string;
}

const SILENT: ServerLogger = { info: () => {}, warn: () => {}, error: () => {} };

function pickClock(options: ReferenceServerOptions): { clock: Clock; virtualClock: ManualClock | undefined } {
  if (options.clock !== undefined) {
    return {
      clock: options.clock,
      virtualClock: options.clock instanceof ManualClock ? options.clock : undefined,
    };
  }
  if (options.virtualTime === true) {
    const clock = new ManualClock(options.startTimeMs ?? Date.now());
    return { clock, virtualClock: clock };
  }
  return { clock: systemClock, virtualClock: undefined };
}

/**
 * Builds the context from caller options.
 *
 * @throws {@link ConfigurationError} for a bad option.
 */
export function createServerContext(
  options: ReferenceServerOptions = {},
  store: Store = createMemoryStore(),
): ServerContext {
  const resolved = resolveServerOptions(options);
  const { clock, virtualClock } = pickClock(options);
  const logger = options.logger ?? SILENT;
  const mailbox = options.mailer === undefined ? new DevMailbox() : undefined;
  const devTurnstile = options.turnstile === undefined ? new DevTurnstile() : undefined;
  return {
    options: resolved,
    clock,
    virtualClock,
    store,
    tokens: createAccessTokenService(clock, options.jwtSecret),
    passwords: createPasswordHasher(options.passwordHashing),
    mailer: options.mailer ?? mailbox!.deliver,
    mailbox,
    turnstile: options.turnstile ?? devTurnstile!.verify,
    devTurnstile,
    hub: new WsHub(clock, logger),
    logger,
    baseUrl: `http://${resolved.host}:${resolved.port}`,
  };
}
