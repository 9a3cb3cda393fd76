/**
 * The reference server: a local stand-in for the messaging service, for
 * tests, examples and `ams serve`. Exposed as `@agent-messaging/dev/testing`.
 *
 * @module
 */
export { startReferenceServer, type ReferenceServer } from './start.js';
export type { ActivityListener, DeliveryActivity, RequestActivity, ServerActivity } from './activity.js';
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
export {
  type ControlAccessToken,
  type ControlAgent,
  type ControlAgentOptions,
  type ControlWebhook,
} from './control/agent-control.js';
export type { AgentKeyView, AgentView } from './agents/records.js';
export type { SystemEventOutcome } from './agents/system-events.js';
export type { GovernanceLevel } from './store/agent-types.js';
export { SYSTEM_SENDER_ID, SYSTEM_CONVERSATION_ID } from './agents/system-sender.js';
export {
  buildKeyProof,
  keyProofTranscript,
  KEY_CHALLENGE_TTL_MS,
  type KeyChallenge,
  type KeyProofFields,
} from './agents/key-proof.js';
export { RATE_LIMIT_RULES, type RateLimitRule, type RateLimitName } from './limits/rate-limiter.js';
export { DELIVERY_FAILED_EVENT } from './messages/notices.js';
