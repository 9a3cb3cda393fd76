/**
 * The reference server: a local stand-in for the messaging service, for
 * tests, examples and `ams serve`. Exposed as `agent-messaging-sdk/testing`.
 *
 * @module
 */
export { startReferenceServer, type ReferenceServer } from './start.js';
export {
  DEFAULT_SERVER_OPTIONS,
  type ReferenceServerOptions,
  type ServerLogger,
  type WebAuthnOptions,
} from './options.js';
export { ControlApi, type AccountState, type ControlUserOptions } from './control/control-api.js';
export { DEFAULT_PASSWORD_HASHING, type PasswordHashingOptions } from './auth/password-hash.js';
export { DEFAULT_TURNSTILE_POLICY, type TurnstilePolicy, type TurnstileVerifier } from './auth/turnstile.js';
export { MAILBOX_DEPTH, type Mailer, type VerificationEmail } from './auth/mailbox.js';
export type { CodeScene } from './store/types.js';
export { WS_CLOSE, WS_PATH } from './ws/frames.js';
