/**
 * `agent-messaging-sdk/testing`: the reference server and what steers it.
 *
 * @example
 * ```ts
 * import { startReferenceServer } from 'agent-messaging-sdk/testing';
 *
 * const server = await startReferenceServer({ virtualTime: true });
 * console.log(server.url, server.wsUrl);
 * await server.close();
 * ```
 *
 * @module
 */
export {
  startReferenceServer,
  ControlApi,
  DEFAULT_SERVER_OPTIONS,
  DEFAULT_PASSWORD_HASHING,
  DEFAULT_TURNSTILE_POLICY,
  MAILBOX_DEPTH,
  WS_CLOSE,
  WS_PATH,
  type ReferenceServer,
  type ReferenceServerOptions,
  type ServerLogger,
  type WebAuthnOptions,
  type AccountState,
  type ControlUserOptions,
  type PasswordHashingOptions,
  type TurnstilePolicy,
  type TurnstileVerifier,
  type Mailer,
  type VerificationEmail,
  type CodeScene,
} from '../server/index.js';
export { ManualClock, systemClock, type Clock, type TimerHandle } from '../core/clock.js';
