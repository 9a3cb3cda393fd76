/**
 * `@agent-messaging/dev/testing`: the reference server and what steers it.
 *
 * @example
 * ```ts
 * import { startReferenceServer } from '@agent-messaging/dev/testing';
 *
 * const server = await startReferenceServer({ virtualTime: true });
 * console.log(server.url, server.wsUrl);
 * await server.close();
 * ```
 *
 * @module testing
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
  type ActivityListener,
  type DeliveryActivity,
  type RequestActivity,
  type ServerActivity,
  type WebAuthnOptions,
  type AccountState,
  type ControlUserOptions,
  type PasswordHashingOptions,
  type TurnstilePolicy,
  type TurnstileVerifier,
  type Mailer,
  type VerificationEmail,
  type CodeScene,
  type ControlAccessToken,
  type ControlAgent,
  type ControlAgentOptions,
  type ControlWebhook,
  type AgentKeyView,
  type AgentView,
  type SystemEventOutcome,
  type GovernanceLevel,
  SYSTEM_SENDER_ID,
  SYSTEM_CONVERSATION_ID,
  buildKeyProof,
  keyProofTranscript,
  KEY_CHALLENGE_TTL_MS,
  type KeyChallenge,
  type KeyProofFields,
  RATE_LIMIT_RULES,
  type RateLimitRule,
  type RateLimitName,
  DELIVERY_FAILED_EVENT,
} from '../server/index.js';
export type { WsAckOptions } from '../server/delivery/types.js';
export { ManualClock, systemClock, type Clock, type TimerHandle } from 'agent-messaging-sdk/protocol';

// The testing kit: a server, a user and an agent in one call
export { createTestWorld, TestWorld, type WaitOptions, type DeliveryExpectation } from './test-world.js';
export {
  DEFAULT_TEST_WORLD_OPTIONS,
  type TestWorldOptions,
  type TestWorldAgentOptions,
} from './test-world-options.js';
export { TestWorldError } from './test-world-parts.js';
