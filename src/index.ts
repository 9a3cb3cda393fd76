/**
 * agent-messaging-sdk: the SDK for agents on an end-to-end encrypted
 * human/agent messaging service.
 *
 * The root entry carries what every agent needs whatever its transport:
 * - typed errors (one base class, subclasses split by who failed, `isXError`
 *   guards that work across two copies of the package, the error catalogue);
 * - the service's V1 limits as named constants;
 * - the injectable {@link Clock} (and {@link ManualClock} for tests);
 * - the wire model: zod schemas beside their types, event names, WebSocket
 *   frames and parsers that throw only {@link ValidationError}.
 *
 * Crypto, the webhook receiver and the reference server live in the
 * `./crypto`, `./webhook` and `./testing` subpaths.
 *
 * @example
 * ```ts
 * import { isServiceError, parseWebhookDeliveryBody, parseJson } from 'agent-messaging-sdk';
 *
 * const body = parseWebhookDeliveryBody(parseJson(rawBody));
 * try {
 *   await send();
 * } catch (err) {
 *   if (isServiceError(err, 'RELATION_REVOKED')) forget(body.metadata.conversation_id);
 * }
 * ```
 *
 * @module
 */

// Errors
export {
  AmsError,
  ServiceError,
  RateLimitError,
  TransportError,
  TimeoutError,
  ValidationError,
  CryptoError,
  WebhookVerificationError,
  HandlerError,
  ConfigurationError,
  isAmsError,
  isServiceError,
  isRateLimitError,
  isTransportError,
  isTimeoutError,
  isValidationError,
  isCryptoError,
  isWebhookVerificationError,
  isHandlerError,
  isConfigurationError,
  ERROR_BRAND,
  ERROR_CATALOGUE,
  ERROR_CODES,
  DECRYPT_FAILURE_REASONS,
  STREAM_ERROR_VALUES,
  ARTIFACT_DENIED_REASONS,
  isErrorCode,
  statusOf,
  dispositionOf,
  isTerminalCode,
  toServiceError,
  parseRetryAfter,
  redactSecrets,
  type AmsErrorOptions,
  type ErrorKind,
  type ErrorCode,
  type AnyErrorCode,
  type ErrorCategory,
  type ErrorDisposition,
  type ErrorCatalogueEntry,
  type DecryptFailureReason,
  type StreamErrorValue,
  type ArtifactDeniedReason,
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
} from './core/errors/index.js';

// Limits
export { LIMITS, WEBHOOK_RETRY_SCHEDULE_MS, WEBHOOK_MAX_FAILURES, type Limits } from './core/limits.js';

// Clock
export { systemClock, ManualClock, type Clock, type TimerHandle, type TimerOptions } from './core/clock.js';
export { createRateLimiter, type RateLimiter, type RateLimiterOptions } from './core/rate-limiter.js';

// Protocol: error object
export {
  ErrorObjectSchema,
  ErrorResponseSchema,
  errorBody,
  i18nKeyFor,
  type ErrorObject,
  type ErrorResponse,
} from './core/protocol/index.js';

// Protocol: agent token, key backup, devices, connection status
export {
  AGENT_TOKEN_PREFIX,
  AgentTokenSchema,
  isAgentToken,
  type AgentToken,
  Argon2ParamsSchema,
  DeviceIdSchema,
  KeyBackupFullSchema,
  KeyBackupMinimalSchema,
  KeyBackupRecordSchema,
  isFullKeyBackup,
  parseKeyBackupRecord,
  type Argon2Params,
  type DeviceId,
  type KeyBackupFull,
  type KeyBackupMinimal,
  type KeyBackupRecord,
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
} from './core/protocol/index.js';

// Protocol: webhook delivery body, object reference, delivery log
export {
  WEBHOOK_BODY_VERSION,
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
  type DeliveryFinalStatus,
  type DeliveryLogEntry,
  type DeliveryLogList,
  isUuidV7,
  parseJson,
} from './core/protocol/index.js';

// Protocol: events and payloads
export {
  WEBHOOK_EVENT_TYPES,
  WS_ONLY_EVENT_TYPES,
  UNSPECIFIED_DELIVERY_EVENT_TYPES,
  EVENT_TYPES,
  isEventType,
  isWebhookEventType,
  isWsOnlyEventType,
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
  type TextPayload,
  type OtherPayload,
  type MessagePayload,
  type SendMessageRequest,
} from './core/protocol/index.js';

// Protocol: WebSocket frames
export {
  WS_CONTROL_FRAME_TYPES,
  WS_EVENT_FRAME_TYPES,
  AUTH_ERROR_REASONS,
  AuthFrameSchema,
  AuthOkFrameSchema,
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
} from './core/protocol/index.js';

// Protocol: WebSocket close codes and auth.error reasons
export {
  agentWebSocketUrl,
  AUTH_ERROR_CLOSE_CODES,
  authErrorDisposition,
  catalogueCodeForWsFailure,
  closeDisposition,
  isTerminalAuthError,
  isTerminalClose,
  WS_AGENT_PATH,
  WS_AUTH_ERROR_REASONS,
  WS_CLOSE_CODES,
  type WsAuthErrorReason,
  type WsCloseCode,
  type WsDisposition,
} from './core/protocol/index.js';

// Logging
export { silentLogger, redactingLogger, type Logger, type LogFields } from './core/logger.js';

// Clients: REST client core and WebSocket dispatcher
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

// Agent: the facade over one event pipeline for both transports (WebSocket and webhook)
export {
  Agent,
  DEFAULT_AGENT_OPTIONS,
  agentKeyDirectory,
  DEFAULT_FLOW_CONTROL,
  RelationPayloadSchema,
  GovernancePayloadSchema,
  type AgentState,
  type AgentCloseOptions,
  type AgentListener,
  type FlowControlOptions,
  type FlowStats,
  type AgentOptions,
  type AgentMode,
  type AgentWebhookOptions,
  type AgentWebhook,
  type AgentStats,
  type AgentTransport,
  type AgentEventBase,
  type AgentEventMap,
  type AgentEventType,
  type AnyAgentEvent,
  type AgentNotificationMap,
  type AgentListenerEvent,
  type AgentListenerArgs,
  type IncomingMessage,
  type RelationEvent,
  type RelationEventType,
  type RelationPayload,
  type ArtifactResponseEvent,
  type GovernanceEvent,
  type GovernancePayload,
  type GenericAgentEvent,
  type DecryptFailure,
  type DuplicateInfo,
  type CloseResult,
  type SendResult,
  type KeyLifecycleEvent,
  type KeyLifecycleEventType,
  type AgentApi,
  type AgentSelf,
  type KeyCheckResult,
  type SendOptions,
} from './agent/index.js';

// Owner client: the human side (sign-up with key backup, login, devices, agents, messages)
export {
  UserClient,
  DEFAULT_USER_CLIENT_OPTIONS,
  RefreshCookieJar,
  isLoopbackHost,
  REFRESH_COOKIE_NAME,
  type AgentInfo,
  type CodeLoginOptions,
  type ConversationInfo,
  type CreatedAgentInfo,
  type DeviceInfo,
  type FailedMessage,
  type InboxOptions,
  type InboxPage,
  type KeyBackupCostOptions,
  type LoginOptions,
  type ReceivedMessage,
  type RefreshCookieJarOptions,
  type SetCookieHeader,
  type RegisteredKeys,
  type RegisterOptions,
  type ResetPasswordOptions,
  type SendCodeOptions,
  type SentMessageResult,
  type SessionInfo,
  type TokenRegenerationResult,
  type UserClientEvents,
  type UserClientOptions,
  type WebhookInfo,
} from './client/index.js';
