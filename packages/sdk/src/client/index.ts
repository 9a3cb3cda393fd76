/**
 * The owner client (`UserClient`), with the wire schemas of the service's
 * account, agent, conversation and message answers (they live in
 * `messaging/wire/`, shared with the Agent).
 *
 * @module
 */
export { UserClient } from './user-client.js';
export { DEFAULT_USER_CLIENT_OPTIONS, type KeyBackupCostOptions, type UserClientOptions } from './options.js';
export type {
  CodeLoginOptions,
  FailedMessage,
  InboxOptions,
  InboxPage,
  LoginOptions,
  RegisterOptions,
  ResetPasswordOptions,
  SendCodeOptions,
  StopTurnResult,
  TurnStoppedNotice,
  UserClientEvents,
} from './user-client-types.js';
export type { SessionInfo } from './session.js';
export type {
  MigrationCompleteOptions,
  MigrationJoin,
  MigrationJoined,
  MigrationOffer,
  MigrationReceiveOptions,
  MigrationResult,
  MigrationWaitOptions,
  UserMigration,
} from './migration/user-migration.js';
export {
  Groups,
  UserGroups,
  type GroupInfo,
  type GroupInvite,
  type GroupKeyRotationResult,
  type GroupMemberInfo,
  type GroupsDeps,
  type RotateGroupKeyOptions,
} from '../messaging/groups.js';
export type { GroupKeyRotatedEvent, GroupUpdatedEvent } from './user-client-types.js';
export type { ReceivedMessage } from './open-message.js';
export type { StatusUpdate } from './user-status.js';
export type {
  StreamDelta,
  StreamEnded,
  StreamFailure,
  StreamFailureReason,
  StreamStarted,
  StreamReplayStore,
  StreamPartUpdate,
  StreamPartDropped,
} from './streams/receiver.js';
export { MemoryStreamReplayStore, STREAM_DEADLINE_MS } from './streams/receiver.js';
export type {
  AgentInfo,
  ConversationInfo,
  CreatedAgentInfo,
  DeviceInfo,
  TokenRegenerationResult,
  WebhookInfo,
} from './views.js';
export {
  RefreshCookieJar,
  isLoopbackHost,
  REFRESH_COOKIE_NAME,
  type RefreshCookieJarOptions,
  type SetCookieHeader,
} from './cookie-jar.js';
export type { RegisteredKeys, SentMessageResult } from '../messaging/wire/results.js';
export * from '../messaging/wire/index.js';
