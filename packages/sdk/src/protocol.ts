/**
 * `agent-messaging-sdk/protocol`: the wire contract of the service, for code
 * that speaks it from the other side. The reference server, the dev console
 * and the testing kit of `@agent-messaging/dev` build on this entry only
 * (with the root entry and `/crypto`), so a service written from the same
 * contract can reuse it too.
 *
 * It holds the route and frame names (the one table a real service's names
 * replace, docs/protocol-names.md), the request and frame schemas, limits,
 * encoding, the envelope and file-format parsers, key proofs, the webhook
 * signer, and the agent-side key registration; the error catalogue and the
 * option types of the error classes (for code that builds SDK errors itself);
 * and the lower layers the Agent is built on: the REST client, the WebSocket
 * dispatcher, loggers and clocks. A bot rarely needs any of it: its names are
 * stable within a minor version of the SDK, and a change to them is listed in
 * CHANGELOG.md and shows in its API report (`packages/sdk/api/protocol.api.md`).
 *
 * @example
 * ```ts
 * import { routePath, SERVICE_ROUTES } from 'agent-messaging-sdk/protocol';
 *
 * routePath(SERVICE_ROUTES.getConversation, { id: 'c1' }); // '/conversations/c1'
 * ```
 *
 * @module protocol
 */
export { type Clock, ManualClock, systemClock, type TimerHandle } from './core/clock.js';
export { fromBase64, fromUtf8, toBase64, utf8 } from './core/encoding.js';
export { type ArtifactDeniedReason, type StreamErrorValue } from './core/errors/codes.js';
export {
  ConfigurationError,
  ManifestTooLargeError,
  RateLimitError,
  ServiceError,
  TimeoutError,
  TransportError,
  ValidationError,
  type ErrorCode,
  toErrorCode,
  type UnknownErrorCode,
  type AnyErrorCode,
  type AmsErrorCode,
  type ClientErrorCode,
  isConfigurationError,
  redactSecrets,
  statusOf,
} from './core/errors/index.js';
export { LIMITS, type Limits, WEBHOOK_MAX_FAILURES, WEBHOOK_RETRY_SCHEDULE_MS } from './core/limits.js';
export { FILE_MAX_BYTES } from './core/limits/objects.js';
export { STREAM_LIMITS } from './core/limits/streams.js';
export { generateAgentToken, isAgentToken } from './core/protocol/agent-token.js';
export {
  AnswerArtifactRequestSchema,
  answerDataProblems,
  ARTIFACT_LIMITS,
  type ArtifactAnswerPayload,
  type ArtifactPayload,
  ArtifactPayloadSchema,
  type ArtifactSensitivity,
  type ArtifactState,
  CreateArtifactRequestSchema,
  type FormField,
  FORWARD_TARGET_MAX,
  ForwardRequestSchema,
  HUMAN_DENIED_REASONS,
  ReactionPayloadSchema,
  ReactionRequestSchema,
  type ServiceDeniedReason,
  UpdateArtifactRequestSchema,
} from './core/protocol/artifacts.js';
export {
  DECISION_KINDS,
  DECISION_SIGNATURE_LABEL,
  type DecisionKind,
  type DecisionStatement,
  DecisionStatementSchema,
  decisionSigningBytes,
  type GrantDecisionStatement,
  type ManifestDecisionStatement,
  type SignedDecision,
  SignedDecisionSchema,
} from './core/protocol/decisions.js';
export { manifestSha256, signDecision, verifyDecision } from './crypto/decision.js';
export { type DeliveryFinalStatus, type DeliveryLogEntry } from './core/protocol/delivery-log.js';
export { DEVICE_NAME_MAX_CHARS } from './core/protocol/device.js';
export { errorBody } from './core/protocol/error-object.js';
export { isWsOnlyEventType } from './core/protocol/events.js';
export { FILE_FORMAT, type FilePayload, FilePayloadSchema } from './core/protocol/file-payload.js';
export {
  GrantDecisionSchema,
  GrantRequestBodySchema,
  type GrantScope,
  type GrantStatus,
  GrantStatusSchema,
  GrantWindowSecondsSchema,
} from './core/protocol/grants.js';
export {
  GROUP_ROSTER_CONTEXT,
  GROUP_ROSTER_FORMAT,
  type GroupRoster,
  type GroupRosterMember,
  GroupRosterMemberSchema,
  GroupRosterSchema,
  groupRosterBytes,
  type PutGroupRosterRequest,
  PutGroupRosterRequestSchema,
  type SignedGroupRoster,
  SignedGroupRosterSchema,
} from './core/protocol/group-roster.js';
export {
  buildGroupRoster,
  type BuildGroupRosterInput,
  GroupRosterBook,
  type GroupRosterBookOptions,
  type GroupRosterProblem,
  rosterFingerprint,
  type RosterMemberKeys,
  signGroupRoster,
} from './messaging/roster.js';
export {
  CreateGroupRequestSchema,
  GROUP_LIMITS,
  type GroupChange,
  inviteCodeFromBytes,
  JoinGroupRequestSchema,
  RotateGroupKeyRequestSchema,
} from './core/protocol/groups.js';
export {
  DeviceIdSchema,
  isFullKeyBackup,
  KeyBackupFullSchema,
  KeyBackupMinimalSchema,
  type KeyBackupRecord,
} from './core/protocol/key-backup.js';
export {
  type CapabilityManifest,
  CapabilityManifestSchema,
  ManifestDecisionSchema,
  type ManifestRevisionStatus,
  manifestSizeBytes,
  manifestSizeVerdict,
} from './core/protocol/manifest.js';
export {
  JoinMigrationBodySchema,
  MIGRATION_CODE_ALPHABET,
  MIGRATION_CODE_LENGTH,
  MIGRATION_COMMIT_LABEL,
  MIGRATION_SESSION_TTL_MS,
  MigrationBundleBodySchema,
  MigrationKeyBodySchema,
  type MigrationState,
  normalizeMigrationCode,
  RevealMigrationKeyBodySchema,
  StartMigrationBodySchema,
} from './core/protocol/migration.js';
export { hasAnyOwn } from './core/protocol/parse.js';
export { REPLY_TO_FIELD, replyToOf, withReplyTo, type ReplyReference } from './core/protocol/replies.js';
export {
  parseStatusPayload,
  STATUS_LIMITS,
  StatusAnswerSchema,
  StatusPayloadSchema,
  StatusRequestSchema,
  type StatusAnswer,
  type StatusPayload,
  type StatusRequest,
} from './core/protocol/status.js';
export { base64Schema, IdentifierSchema } from './core/protocol/primitives.js';
export {
  ARTIFACT_ROUTES,
  CORE_ROUTES,
  FILE_ROUTES,
  GROUP_ROUTES,
  MANIFEST_FRAMES,
  MANIFEST_ROUTES,
  MIGRATION_ROUTES,
  PRESENCE_FRAMES,
  PRESENCE_ROUTES,
  routePath,
  SCALE_FRAMES,
  SERVICE_ROUTES,
  type ServiceRoute,
  STREAM_FRAMES,
  STREAM_ROUTES,
} from './core/protocol/service-names.js';
export {
  type AgentStreamFrame,
  parseAgentStreamFrame,
  parseUserStreamFrame,
  STREAM_ERROR_CODES,
  StreamAbortBodySchema,
  StreamDeltaBatchSchema,
  StreamEndBodySchema,
  StreamIdSchema,
  StreamStartBodySchema,
  type UserStreamFrame,
} from './core/protocol/stream-frames.js';
export {
  isPeerSealedEventType,
  SYSTEM_SENDER_ID,
  type SystemSealedEventType,
  type DeliveryFailedPayload,
} from './core/protocol/system-events.js';
export { WEBHOOK_BODY_VERSION } from './core/protocol/webhook-delivery.js';
export { AUTH_ERROR_CLOSE_CODES, WS_CLOSE_CODES, type WsAuthErrorReason } from './core/protocol/ws-close.js';
export { ACK_FRAME_MAX_IDS } from './core/protocol/ws-frames.js';
export { defaultSyncBackend } from './crypto/backend/node-default.js';
export { portableBackend } from './crypto/backend/portable.js';
export { type SyncCryptoBackend } from './crypto/backend/types.js';
export { createKeyBackup } from './crypto/backup/create.js';
export { ARGON2_PARAMS_MAX } from './crypto/backup/params.js';
export { ed25519KeyProblem } from './crypto/ed25519-rules.js';
export { type EnvelopeHeader, parseEnvelope } from './crypto/envelope-format.js';
export { decodeBase64Strict } from './crypto/envelope-wire.js';
export {
  CHUNK_TAG_BYTES,
  chunkCount,
  chunkNonce,
  ciphertextSize,
  DEFAULT_CHUNK_SIZE,
  encodeFileHeader,
  FILE_HEADER_BYTES,
  FILE_KEY_BYTES,
  maxCiphertextSize,
  NONCE_PREFIX_BYTES,
  parseFileHeader,
} from './crypto/file-stream/format.js';
export {
  buildKeyProof,
  type KeyChallenge,
  type KeyProofFields,
  keyProofMacKey,
  keyProofTranscript,
} from './crypto/key-proof.js';
export { constantTimeEqual } from './crypto/key-schedule.js';
export {
  type AgentKeys,
  fingerprintBytes,
  generateKeys,
  keyFingerprint,
  keysFromPrivate,
} from './crypto/keys.js';
export { type OpenedEnvelope } from './crypto/open-options.js';
export { openAsync } from './crypto/open.js';
export {
  attributeForward,
  type ForwardAttribution,
  type ForwardUnverifiedReason,
} from './messaging/forward-attribution.js';
export { type EnvelopePayload } from './crypto/payload.js';
export { type EnvelopeRecipient } from './crypto/seal-options.js';
export { seal, sealAsync } from './crypto/seal.js';
export {
  type AsyncStreamOpener,
  STREAM_CHECKPOINT_MAX_DELTAS,
  STREAM_CRYPTO_VERSION,
  StreamChain,
  streamEndMessage,
  type StreamHashPrimitives,
  streamOpenerAsync,
  streamSignedMessage,
  type StreamSignedKind,
  unframeStreamAbort,
  unframeStreamDelta,
} from './crypto/stream/stream-crypto.js';
export { streamKeyOf } from './crypto/stream/stream-start.js';
export { createWebhookSigner, type WebhookSigner } from './webhook/sign.js';
export { createAgentApi, type AgentApi } from './agent/api.js';
export { ensureAgentKeys } from './agent/key-lifecycle.js';
export {
  KEY_STATEMENT_MAX_GENERATION,
  KeyStatementSchema,
  type KeyStatementWire,
} from './core/protocol/key-statement.js';

// Moved from the root entry (issue #23): the wire model, the error catalogue and error details,
// the transport (REST client, WebSocket dispatcher), logging, and what the dev package's CLI needs.
export {
  type StreamErrorOptions,
  ERROR_BRAND,
  ERROR_CATALOGUE,
  ERROR_CODES,
  DECRYPT_FAILURE_REASONS,
  DELIVERY_FAILURE_REASONS,
  ENVELOPE_FAILURE_REASONS,
  STREAM_ERROR_VALUES,
  ARTIFACT_DENIED_REASONS,
  dispositionOf,
  isTerminalCode,
  toServiceError,
  parseRetryAfter,
  type AmsErrorOptions,
  type ErrorKind,
  type ErrorCategory,
  type ErrorDisposition,
  type ErrorCatalogueEntry,
  type DecryptFailureReason,
  type FileIntegrityFailure,
  type ServiceErrorOptions,
  type TransportErrorCode,
  type TransportErrorOptions,
  type TimeoutErrorOptions,
  type ValidationErrorOptions,
  type ValidationIssue,
  type CryptoErrorCode,
  type CryptoErrorOptions,
  type WebhookVerificationCode,
  type WebhookVerificationErrorOptions,
  type HandlerErrorOptions,
  type ConfigurationErrorOptions,
  type ErrorResponseParts,
  type HeaderSource,
  type ManifestTooLargeErrorOptions,
} from './core/errors/index.js';
export { type TimerOptions } from './core/clock.js';
export { createRateLimiter, type RateLimiter, type RateLimiterOptions } from './core/rate-limiter.js';
export {
  ErrorObjectSchema,
  ErrorResponseSchema,
  i18nKeyFor,
  type ErrorObject,
  type ErrorResponse,
  AGENT_TOKEN_PREFIX,
  AgentTokenSchema,
  type AgentToken,
  Argon2ParamsSchema,
  KeyBackupRecordSchema,
  parseKeyBackupRecord,
  type Argon2Params,
  type DeviceId,
  type KeyBackupFull,
  type KeyBackupMinimal,
  DeviceSchema,
  DeviceListSchema,
  parseDeviceList,
  type Device,
  type DeviceList,
  CONNECTION_STATUSES,
  ConnectionStatusSchema,
  isKnownConnectionStatus,
  RecoverConnectionResultSchema,
  parseRecoverConnectionResult,
  type ConnectionStatus,
  type KnownConnectionStatus,
  type RecoverConnectionResult,
  DeliveryMetadataSchema,
  InlineDeliveryBodySchema,
  ReferencedDeliveryBodySchema,
  WebhookDeliveryBodySchema,
  isReferencedDelivery,
  parseWebhookDeliveryBody,
  type DeliveryMetadata,
  type InlineDeliveryBody,
  type ReferencedDeliveryBody,
  type WebhookDeliveryBody,
  ObjectRefSchema,
  isSafeObjectKey,
  type ObjectRef,
  DELIVERY_FINAL_STATUSES,
  DeliveryLogEntrySchema,
  DeliveryLogListSchema,
  parseDeliveryLogEntry,
  parseDeliveryLogList,
  type DeliveryLogList,
  isUuidV7,
  parseJson,
  WEBHOOK_EVENT_TYPES,
  WS_ONLY_EVENT_TYPES,
  SYSTEM_SEALED_EVENT_TYPES,
  PEER_SEALED_EVENT_TYPES,
  isSystemSealedEventType,
  sealedTypeProblem,
  type SealedOrigin,
  UNSPECIFIED_DELIVERY_EVENT_TYPES,
  EVENT_TYPES,
  isEventType,
  isWebhookEventType,
  EVENT_PAYLOAD_SCHEMAS,
  RelationRevokedPayloadSchema,
  GrantRevokedPayloadSchema,
  ArtifactDeniedReasonSchema,
  ArtifactResponsePayloadSchema,
  OpaqueEventPayloadSchema,
  parseEventPayload,
  type AnyEventType,
  type EventType,
  type WebhookEventType,
  type WsOnlyEventType,
  type UnspecifiedDeliveryEventType,
  type EventPayload,
  type RelationRevokedPayload,
  type GrantRevokedPayload,
  type ArtifactResponsePayload,
  type OpaqueEventPayload,
  TextPayloadSchema,
  OtherPayloadSchema,
  MessagePayloadSchema,
  SendMessageRequestSchema,
  isTextPayload,
  parseMessagePayload,
  type OtherPayload,
  type SendMessageRequest,
  FILE_NAME_MAX_CHARS,
  parseFilePayload,
  WS_CONTROL_FRAME_TYPES,
  WS_EVENT_FRAME_TYPES,
  AUTH_ERROR_REASONS,
  AuthFrameSchema,
  AuthOkFrameSchema,
  ShareTermsSchema,
  type ShareTerms,
  AuthErrorFrameSchema,
  AuthRenewFrameSchema,
  SessionInvalidatedFrameSchema,
  WsControlFrameSchema,
  WsEventFrameSchema,
  parseWsFrame,
  authFrame,
  authRenewFrame,
  encodeWsFrame,
  type AuthFrame,
  type AuthFrameOptions,
  type AuthOkFrame,
  type AuthErrorFrame,
  type AuthRenewFrame,
  type KnownAuthErrorReason,
  type SessionInvalidatedFrame,
  type WsControlFrame,
  type WsControlFrameType,
  type WsEventFrame,
  type ParsedWsFrame,
  agentWebSocketUrl,
  authErrorDisposition,
  catalogueCodeForWsFailure,
  closeDisposition,
  isTerminalAuthError,
  isTerminalClose,
  WS_AGENT_PATH,
  WS_AUTH_ERROR_REASONS,
  type WsCloseCode,
  type WsDisposition,
  GroupKeyRotatedPayloadSchema,
  GroupUpdatedPayloadSchema,
  normalizeInviteCode,
  parseInviteCode,
  type GroupKeyRotatedPayload,
  type GroupUpdatedPayload,
} from './core/protocol/index.js';
export {
  silentLogger,
  redactingLogger,
  consoleLogger,
  type LogFields,
  type LogLevel,
  type ConsoleLoggerOptions,
} from './core/logger.js';
export {
  createRestClient,
  DEFAULT_REST_OPTIONS,
  fullJitterDelay,
  isIdempotentMethod,
  objectKeyPath,
  pathSegment,
  type BinaryResponse,
  type ClientRateLimits,
  type CredentialsProvider,
  type HttpMethod,
  type QueryParams,
  type RateLimitedInfo,
  type RateLimitKey,
  type RequestCallOptions,
  type ResponseHeaders,
  type RestClient,
  type RestClientEventName,
  type RestClientEvents,
  type RestClientOptions,
  type RestRequestOptions,
  type RestResponse,
  type RestStreamOptions,
  type StreamResponse,
  type StreamRequestOptions,
  type RetryInfo,
  type RetryOptions,
  type RetryReason,
  type SleepFn,
} from './transport/rest/index.js';
export {
  createWsDispatcher,
  createBackoff,
  createHeartbeat,
  DEFAULT_WS_OPTIONS,
  DEFAULT_BACKOFF,
  DEFAULT_HEARTBEAT,
  WS_STATES,
  type Backoff,
  type BackoffOptions,
  type ClientFailure,
  type ConnectionEnd,
  type FatalInfo,
  type Heartbeat,
  type HeartbeatOptions,
  type HeartbeatTarget,
  type SocketCloseEvent,
  type SocketMessageEvent,
  type WebSocketConstructor,
  type WebSocketLike,
  type WsDispatcher,
  type WsDispatcherEventName,
  type WsDispatcherListener,
  type WsDispatcherEvents,
  type WsDispatcherOptions,
  type WsState,
} from './transport/ws/index.js';
export { formatMigrationCode, parseMigrationCode } from './core/protocol/migration.js';
export {
  ARTIFACT_SENSITIVITIES,
  ARTIFACT_STATES,
  SERVICE_DENIED_REASONS,
  ArtifactAnswerPayloadSchema,
  ArtifactContentSchema,
  ArtifactExpiredPayloadSchema,
  ArtifactViewSchema,
  ConfirmContentSchema,
  FormContentSchema,
  FormFieldSchema,
  ForwardedPayloadSchema,
  ToolRequestContentSchema,
  parseArtifactAnswer,
  parseArtifactContent,
  parseArtifactPayload,
  parseForwardRequest,
  parseReactionPayload,
  type AnswerArtifactRequest,
  type ArtifactContent,
  type ArtifactExpiredPayload,
  type ArtifactKind,
  type ArtifactView,
  type CreateArtifactRequest,
  type ForwardedPayload,
  type ForwardRequest,
  type HumanDeniedReason,
  type ReactionPayload,
  type ReactionRequest,
  type UpdateArtifactRequest,
} from './core/protocol/artifacts.js';
export {
  CapabilityChangedPayloadSchema,
  JsonSchemaObjectSchema,
  MANIFEST_FIELD_LIMITS,
  ManifestRevisionSchema,
  ManifestRevisionStatusSchema,
  ManifestStateSchema,
  ManifestToolSchema,
  canonicalJson,
  parseCapabilityManifest,
  type CapabilityChangedPayload,
  type ManifestDecision,
  type ManifestRevision,
  type ManifestSizeVerdict,
  type ManifestState,
  type ManifestTool,
} from './core/protocol/manifest.js';
export {
  ConversationsGrantDataSchema,
  GRANT_DATA_SCHEMAS,
  GRANT_LIMITS,
  GRANT_SCOPES,
  GrantDataAnswerSchema,
  GrantDecidedPayloadSchema,
  GrantScopeSchema,
  GrantViewSchema,
  ProfileGrantDataSchema,
  isGrantScope,
  parseGrantData,
  parseGrantScope,
  type ConversationsGrantData,
  type GrantDataByScope,
  type GrantDecidedPayload,
  type GrantDecision,
  type GrantRequestBody,
  type GrantView,
  type ProfileGrantData,
} from './core/protocol/grants.js';
export {
  AgentStreamFrameSchema,
  ServiceStreamFrameSchema,
  UserStreamFrameSchema,
  isStreamFrameType,
  parseServiceStreamFrame,
  type ServiceStreamFrame,
} from './core/protocol/stream-frames.js';
export {
  RelationPayloadSchema,
  GovernancePayloadSchema,
  type RelationPayload,
  type GovernancePayload,
  agentKeyDirectory,
  type KeyDirectory,
  type RetiredSigningKey,
} from './agent/index.js';
export {
  AgentManifest,
  checkManifest,
  MANIFEST_MAX_WAIT_MS,
  capabilityDecision,
  type ManifestDecisionInfo,
  type ManifestUpdateOptions,
} from './agent/capabilities/manifest.js';
export { checkForwardTargets, forwardedPayload } from './messaging/relay-actions.js';
// Key pins (custom pin stores) and the UserClient's stream replay store (issue #24).
export { parsePinRecord, type KeyRefusedEvent, type RetiredPin } from './agent/index.js';
export { MemoryStreamReplayStore, STREAM_DEADLINE_MS, type StreamReplayStore } from './client/index.js';

// Typed stream parts (issue #26): the record encoding inside a stream's text, its reader, the events.
export {
  checkStreamPartRecord,
  encodeStreamPart,
  encodeStreamText,
  STREAM_PART_LIMITS,
  STREAM_PART_MARK,
  STREAM_PARTS_VERSION,
  StreamPartsReader,
  type StreamJsonValue,
  type StreamPart,
  type StreamStepStatus,
  type StreamPartDropReason,
  type StreamPartRecord,
  type StreamPartsChange,
  type StreamPartChangeEntry,
  type StreamSourcePart,
  type StreamStepPart,
  type StreamTextPart,
  type StreamToolPart,
} from './core/protocol/stream-parts.js';
export type { StreamPartDropped, StreamPartUpdate } from './client/index.js';
export type {
  StreamSourceInput,
  StreamStepInput,
  StreamToolCallInput,
  StreamToolResultInput,
} from './agent/index.js';

// Security issue #24: what the service may seal, forward proofs, ghost keys, refused decisions, group rosters.
export { systemPayloadProblem } from './core/protocol/system-events.js';
export { FORWARD_PROOF_MAX_CHARS, ForwardProofSchema, type ForwardProof } from './core/protocol/artifacts.js';
export { ghostFingerprints, ghostKeyWarning, type KeyWarning } from './messaging/ghost-keys.js';
export type { ForwardKeyLookup } from './messaging/forward-attribution.js';
export type { DecisionRefusal, DecisionRefusalReason } from './agent/events.js';
export type { GroupMembership } from './messaging/key-directory.js';
export {
  readTurnStop,
  readTurnStopped,
  TURN_STOP_TYPE,
  TURN_STOPPED_TYPE,
  TurnStopPayloadSchema,
  TurnStoppedPayloadSchema,
  type TurnStopPayload,
  type TurnStoppedPayload,
} from './core/protocol/turn-control.js';

// Turns (#26): the types of `AgentOptions['turns']`, the Agent's and the UserClient's `turnStopped`
// events and `user.stopTurn()`'s result (the root entry keeps to its 80 names; these are reachable
// through those members too).
export type { TurnOptions, TurnStrategy } from './agent/turns/strategy.js';
export type { TurnStoppedEvent } from './agent/turns/stop.js';
export type { StopTurnResult, TurnStoppedNotice } from './client/user-client-types.js';

// Issue #26: edits, deletes and read receipts (sealed message actions).
export {
  deletePayload,
  editPayload,
  MESSAGE_DELETE_TYPE,
  MESSAGE_EDIT_TYPE,
  MessageDeletePayloadSchema,
  MessageEditPayloadSchema,
  readMessageAction,
  RECEIPT_MAX_IDS,
  RECEIPT_TYPE,
  receiptPayload,
  ReceiptPayloadSchema,
  type MessageAction,
  type MessageDeletePayload,
  type MessageEditPayload,
  type ReceiptPayload,
} from './core/protocol/message-actions.js';
export type { MessageDeleted, MessageEdited, MessageRead } from './messaging/message-actions.js';
