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
export {
  ManualClock,
  systemClock,
  type Clock,
  type TimerHandle,
  type TimerOptions,
} from 'agent-messaging-sdk/protocol';

// The testing kit: a server, users, agents and groups in one call
export {
  createTestWorld,
  TestWorld,
  type WaitOptions,
  type DeliveryWaitOptions,
  type ReplyWaitOptions,
  type AsUserOptions,
  type DeliveryExpectation,
  type WorldUser,
  type WorldAgent,
  type WorldGroup,
  type DenyReason,
  type MigrateUserOptions,
  type WorldMigration,
} from './test-world.js';
export {
  DEFAULT_TEST_WORLD_OPTIONS,
  type TestWorldOptions,
  type TestWorldAgentOptions,
  type TestWorldUserOptions,
  type TestWorldGroupOptions,
} from './test-world-options.js';
export { TestWorldError } from './test-world-parts.js';
export type {
  TestReply,
  ReplyKind,
  ReplyOfKind,
  ReplyBase,
  TextReply,
  StreamReply,
  ArtifactReply,
  FileReply,
  MessageReply,
  ReceivedArtifact,
  StreamFailure,
} from './test-world-replies.js';
// Time: the mixed clock (virtual now(), real timers, rate windows satisfied once sent requests are answered)
export { createMixedClock, serverClock, type VirtualTime } from './clock.js';
// The relay: record, assert no plaintext, rewrite, drop, inject, stage faults
export {
  startRelay,
  answer,
  DROP,
  encodingsOf,
  type Relay,
  type RelayOptions,
  type RelayRecord,
  type RelaySocket,
  type RelayStats,
  type RelayAnswer,
  type FrameRewrite,
  type JsonRewrite,
  type Direction,
  type PartitionOptions,
} from './relay.js';
