/**
 * The agent runtime: the {@link Agent} facade over one event pipeline for
 * both transports, and the parts it is built from (REST API, key lifecycle,
 * key directory, message sender, ordering).
 *
 * @module
 */

// The facade
export { Agent, type AgentState, type AgentCloseOptions, type AgentListener } from './agent.js';
export { DEFAULT_FLOW_CONTROL, type FlowControlOptions, type FlowStats } from './pipeline/flow-control.js';
export {
  DEFAULT_AGENT_OPTIONS,
  agentKeyDirectory,
  type AgentOptions,
  type AgentMode,
  type AgentWebhookOptions,
} from './options.js';
export type { AgentWebhook } from './webhook.js';
export { type ShutdownSignalsOptions } from './options.js';

// Middleware (grammY / Bolt style) over the typed events
export {
  Composer,
  parseCommand,
  type Middleware,
  type MiddlewareLike,
  type NextFunction,
  type HearsTrigger,
} from './composer.js';
export {
  createContext,
  isMessage,
  type Context,
  type MessageContext,
  type CommandContext,
  type HearsContext,
  type CommandMatch,
} from './context.js';
export type { AgentStats } from './pipeline/types.js';
export type {
  AgentObserver,
  DeliveryObserver,
  ObservedDelivery,
  ObservedOperation,
  ObservedOutcome,
  ObservedStep,
} from './observer.js';
export type { TurnStoppedEvent } from './turns/stop.js';
export type { TurnOptions, TurnStrategy } from './turns/strategy.js';
export type { TurnAbortReason } from './turns/registry.js';
export {
  AUTO_IN_FLIGHT_THRESHOLD,
  type OpenPoolStats,
  type OpenWorkersSetting,
} from '../crypto/open-pool/pool.js';

// Typed events
export {
  RelationPayloadSchema,
  GovernancePayloadSchema,
  type AgentTransport,
  type ExpiredEvents,
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
  type DecisionRefusal,
  type DecisionRefusalReason,
  type DuplicateInfo,
  type CloseResult,
  type SendResult,
} from './events.js';

// Ordering
export {
  createOrderedScheduler,
  DEFAULT_ORDERING,
  type OrderedScheduler,
  type OrderedSchedulerOptions,
  type TaskOutcome,
} from './ordering.js';

// The parts (REST API, keys, sending)
export {
  createAgentApi,
  type AgentApi,
  type AgentApiOptions,
  type AgentSelf,
  type KeyCheckResult,
  type RegisteredKeys,
  type SentMessageResult,
} from './api.js';
export {
  ensureAgentKeys,
  type EnsureAgentKeysOptions,
  type KeyLifecycleApi,
  type KeyLifecycleEvent,
  type KeyLifecycleEventType,
} from './key-lifecycle.js';
export {
  createKeyDirectory,
  DEFAULT_KEY_DIRECTORY,
  SYSTEM_PRINCIPAL_ID,
  type KeyDirectory,
  type KeyDirectoryOptions,
  type KeySource,
  type PeerKeys,
  type RetiredPeerKey,
  type RetiredSigningKey,
} from '../messaging/key-directory.js';
export {
  KeyPins,
  MemoryKeyPinStore,
  type KeyChangePolicy,
  type KeyChangedEvent,
  type KeyRefusedEvent,
  parsePinRecord,
  type RetiredPin,
  type KeyPinsOptions,
  type KeyPinStore,
  type PinnedKeys,
  type PinRecord,
} from '../messaging/key-pins.js';
export { FileKeyPinStore } from './file-key-pins.js';
export { MemberWatch, type MembersChangedEvent, type MemberWatchOptions } from '../messaging/member-watch.js';
export {
  createMessageSender,
  type MessagePoster,
  type MessageSender,
  type MessageSenderOptions,
  type SendOptions,
} from '../messaging/sender.js';

// Streamed replies
export {
  createStreamWriter,
  pipeToWriter,
  type StreamSummary,
  type StreamWriter,
  type StreamWriterDeps,
  type StreamWriterOptions,
  type StreamSourceInput,
  type StreamStepInput,
  type StreamToolCallInput,
  type StreamToolResultInput,
} from './streams/writer.js';
export { type TextChunkSource, type StreamOpener } from './streams/reply-stream.js';
export type { StreamEndFields, StreamTransport } from '../messaging/stream-transport.js';
