/**
 * agent-messaging-sdk: the SDK for agents on an end-to-end encrypted
 * human/agent messaging service.
 *
 * The root entry holds what an agent author uses: the {@link Agent} with its
 * options, events and middleware context; the {@link UserClient} (the human
 * side, for demos and tests); message payloads; and the typed errors with
 * their guards and codes. Everything else lives in a named entry:
 * `agent-messaging-sdk/crypto` (keys, envelopes, key store),
 * `agent-messaging-sdk/webhook` (receiving webhooks without the Agent) and
 * `agent-messaging-sdk/protocol` (the wire contract: schemas, constants,
 * route tables, the REST client and WebSocket dispatcher).
 *
 * @example
 * ```ts
 * import { Agent, isServiceError } from 'agent-messaging-sdk';
 *
 * const agent = new Agent({ baseUrl, agentId, token });
 * agent.on('message.new', async (msg) => {
 *   try {
 *     await msg.reply(`echo: ${msg.text}`);
 *   } catch (err) {
 *     if (isServiceError(err, 'RELATION_REVOKED')) return; // the user removed the agent
 *     throw err;
 *   }
 * });
 * await agent.connect();
 * ```
 *
 * @module index
 */

// The Agent
export { Agent, type AgentState, type AgentCloseOptions } from './agent/agent.js';
export type { AgentOptions, AgentMode, AgentWebhookOptions } from './agent/options.js';
export type { AgentWebhook } from './agent/webhook.js';
export type { AgentStats } from './agent/pipeline/types.js';
export type { SendOptions } from './agent/index.js';
export type { StreamSummary, StreamWriter, StreamWriterOptions } from './agent/index.js';
export type { TextChunkSource } from './agent/streams/reply-stream.js';

// Events
export type {
  AgentEventMap,
  AgentEventType,
  AgentListenerEvent,
  AgentNotificationMap,
  AgentWarning,
  AnyAgentEvent,
  ArtifactResponseEvent,
  CloseResult,
  DecryptFailure,
  IncomingMessage,
  ReactionEvent,
  RelationEvent,
  SendResult,
} from './agent/events.js';

// Middleware (grammY/Bolt style)
export { Composer, isMessage, type Middleware, type NextFunction } from './agent/index.js';
export type { CommandContext, Context, HearsContext, MessageContext } from './agent/context.js';

// Message payloads and files
export type { FilePayload, MessagePayload, TextPayload } from './core/protocol/index.js';
export type { FileDownload, FileUploadOptions, SentFile } from './files/index.js';

// The human side
export { UserClient } from './client/user-client.js';
export type { UserClientOptions } from './client/options.js';
export type { UserClientEvents } from './client/user-client-types.js';
export type { ReceivedMessage } from './client/open-message.js';
export type { AgentInfo, ConversationInfo, CreatedAgentInfo } from './client/views.js';
export type { GroupInfo } from './messaging/groups.js';
export type { SentMessageResult } from './messaging/wire/results.js';

// Errors: classes, guards, codes (docs/errors.md)
export {
  AmsError,
  ServiceError,
  RateLimitError,
  StreamError,
  ManifestTooLargeError,
  TransportError,
  TimeoutError,
  ValidationError,
  CryptoError,
  FileIntegrityError,
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
  isErrorCode,
  dispositionOf,
  type ErrorCode,
  type UnknownErrorCode,
} from './core/errors/index.js';

// Pinned peer keys kept across restarts (docs/agent.md, "Pinned keys and members")
export { FileKeyPinStore } from './agent/file-key-pins.js';

// Capabilities
export type { CapabilityManifest } from './core/protocol/manifest.js';

// Limits and logging
export { LIMITS } from './core/limits.js';
export type { Logger } from './core/logger.js';
