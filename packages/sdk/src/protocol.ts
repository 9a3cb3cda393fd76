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
 * signer, and the agent-side key registration. A bot needs none of it: its
 * names are stable within a minor version of the SDK, and a change to them is
 * listed in CHANGELOG.md under "Protocol".
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
  type ErrorCode,
  isConfigurationError,
  redactSecrets,
  statusOf,
} from './core/errors/index.js';
export { LIMITS, WEBHOOK_MAX_FAILURES, WEBHOOK_RETRY_SCHEDULE_MS } from './core/limits.js';
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
export { base64Schema, IdentifierSchema } from './core/protocol/primitives.js';
export {
  ARTIFACT_ROUTES,
  CORE_ROUTES,
  FILE_ROUTES,
  GROUP_ROUTES,
  MANIFEST_FRAMES,
  MANIFEST_ROUTES,
  MIGRATION_ROUTES,
  routePath,
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
