/**
 * The Agent's typed events: what a handler receives for each event type of
 * the service, and the notifications the Agent itself raises.
 *
 * Field names are camelCase; each event keeps the decrypted (or cleartext)
 * `payload` with the service's own field names. Values named `conversationId`,
 * `senderId`, `messageId` and `createdAt` come from the signed envelope when
 * the event was sealed (`sealed: true`), never from the unsigned delivery
 * metadata.
 *
 * @module
 */
import type { ReplyReference } from '../core/protocol/replies.js';
import type { MessageDeleted, MessageEdited, MessageRead } from '../messaging/message-actions.js';
import { SYSTEM_SEALED_EVENT_TYPES } from '../core/protocol/system-events.js';
import type { ForwardAttribution } from '../messaging/forward-attribution.js';
import type { KeyWarning } from '../messaging/ghost-keys.js';
import * as z from '../core/lazy-zod.js';
import type { SendOptions } from '../messaging/sender.js';
import type { AmsError } from '../core/errors/base.js';
import type { ArtifactDeniedReason, DecryptFailureReason } from '../core/errors/codes.js';
import type { CryptoError } from '../core/errors/crypto-error.js';
import type { ArtifactResponsePayload } from '../core/protocol/events.js';
import type { ArtifactExpiredPayload, ReactionPayload } from '../core/protocol/artifacts.js';
import type { MessagePayload } from '../core/protocol/payloads.js';
import { IdentifierSchema } from '../core/protocol/primitives.js';
import type { SameType } from '../core/protocol/same-type.js';
import type { SentMessageResult } from '../messaging/wire/results.js';
import type { RateLimitedInfo } from '../transport/rest/events.js';
import type { KeyLifecycleEvent } from './key-lifecycle.js';
import type { KeyChangedEvent, KeyRefusedEvent } from '../messaging/key-pins.js';
import type { MembersChangedEvent } from '../messaging/member-watch.js';
import type { FatalInfo } from '../transport/ws/events.js';
import type { TextChunkSource } from './streams/reply-stream.js';
import type { StreamSummary, StreamWriter, StreamWriterOptions } from './streams/writer.js';

/** `turnStopped`: a human stopped the running turns of a conversation. */
export interface TurnStoppedEvent {
  readonly conversationId: string;
  /** The human who stopped (signed sender of the stop). */
  readonly stoppedBy: string;
  /** The id the human's client gave the stop (echoed in the answer). */
  readonly stopId: string;
  /** Running turns aborted (0: nothing ran). */
  readonly turns: number;
}

/** A warning the Agent raises (event `warning`, and the logger). */
export interface AgentWarning {
  /** `MANIFEST_SIZE_WARNING`: a manifest at or above 64 KB (it is still sent). */
  readonly code: 'MANIFEST_SIZE_WARNING';
  /** Display text. */
  readonly message: string;
  /** The manifest's size and the thresholds, bytes. */
  readonly sizeBytes: number;
  readonly warnBytes: number;
  readonly maxBytes: number;
}

/** Events that expired in the pending queue, from the newest delivery-log entries. */
export interface ExpiredEvents {
  /** How many. */
  readonly count: number;
  /** How many of each event type. */
  readonly byType: Readonly<Record<string, number>>;
}

/** How an event reached the agent. */
export type AgentTransport = 'websocket' | 'webhook';

/** The payload of the four relation events (sealed by `system`). */
export const RelationPayloadSchema = z.looseObject({
  user_id: IdentifierSchema,
  conversation_id: IdentifierSchema,
  agent_id: IdentifierSchema.optional(),
});
/** Payload of `relation.established`, `relation.revoked`, `relation.suspended`, `relation.restored`. */
export interface RelationPayload {
  [field: string]: unknown;
  user_id: string;
  conversation_id: string;
  agent_id?: string | undefined;
}
true satisfies SameType<z.output<typeof RelationPayloadSchema>, RelationPayload>;

/** The cleartext payload of `agent.governance`. */
export const GovernancePayloadSchema = z.looseObject({
  agent_id: IdentifierSchema,
  level: z.string().min(1).max(16),
  reason: z.string().max(2000).nullable().optional(),
});
/** Payload of `agent.governance`. */
export interface GovernancePayload {
  [field: string]: unknown;
  agent_id: string;
  level: string;
  reason?: string | null | undefined;
}
true satisfies SameType<z.output<typeof GovernancePayloadSchema>, GovernancePayload>;

/** Fields every delivered event has. */
export interface AgentEventBase<T extends string = string> {
  /** The event type. */
  readonly type: T;
  /** The delivery id (`delivery_id` on WebSocket, `X-Service-Delivery-Id` by webhook). */
  readonly deliveryId: string;
  /** How the event arrived. */
  readonly transport: AgentTransport;
  /** Conversation (signed when `sealed`; `system` for events outside a conversation). */
  readonly conversationId: string;
  /** Sender (signed when `sealed`; `system` for service events). */
  readonly senderId: string;
  /** Creation time, ISO 8601 UTC with milliseconds (signed when `sealed`). */
  readonly createdAt: string;
  /** The signed message id of a sealed event; undefined for cleartext events. */
  readonly messageId: string | undefined;
  /** True when the event came in an envelope whose signature verified. */
  readonly sealed: boolean;
}

/** Result of sending a message: `messageId`, `conversationId`, `seq`, `created`. */
export type SendResult = SentMessageResult;

/** `message.new`: a message from a user. */
export interface IncomingMessage extends AgentEventBase<'message.new'> {
  readonly messageId: string;
  readonly sealed: true;
  /** The decrypted payload, e.g. `{ type: 'text', text: 'hi' }`. */
  readonly payload: MessagePayload;
  /** `payload.text` of a text payload, else undefined. */
  readonly text: string | undefined;
  /**
   * For a forwarded copy (`payload.type === 'forwarded'`): who the original
   * is from, and whether that is verified against the original sender's key
   * (`forwarded.verified`) or only the forwarder's claim. Absent otherwise.
   */
  readonly forwarded?: ForwardAttribution;
  /**
   * The message this one answers (its sealed `reply_to`), with the quoted
   * text when the agent saw that text message here; absent otherwise.
   */
  readonly replyTo?: ReplyReference;
  /**
   * Sends a message back to the same conversation: a payload object, or a
   * string for `{ type: 'text', text }`.
   *
   * @throws {@link ServiceError} `RELATION_REVOKED`, `CONVERSATION_FORBIDDEN`,
   * {@link RateLimitError} `MESSAGE_RATE_LIMITED` (after the client-side limiter and retries);
   * the signal's reason when `options.signal` aborts first.
   */
  reply(payload: MessagePayload | string, options?: SendOptions): Promise<SendResult>;
  /**
   * Streams a reply into the same conversation (docs/streaming.md): with no
   * source, resolves with a writer (`write`, `end`, `abort`); with an (async)
   * iterable of text chunks (an LLM SDK's token stream), writes them all and
   * ends the stream. Never retried.
   *
   * @throws {@link StreamError} `client_offline`, `peer_revoked`, `rate_limited`
   * when the service refuses the start; {@link ConfigurationError} when this
   * agent cannot stream (an event built outside an Agent).
   * @example
   * ```ts
   * agent.on('message.new', (msg) => msg.replyStream(llm.stream(msg.text ?? '')));
   * ```
   */
  replyStream(options?: StreamWriterOptions): Promise<StreamWriter>;
  replyStream(source: TextChunkSource, options?: StreamWriterOptions): Promise<StreamSummary>;
}

/** The relation event types. */
export type RelationEventType =
  'relation.established' | 'relation.revoked' | 'relation.suspended' | 'relation.restored';

/** A relation changed (a user added or revoked the agent; the platform suspended or restored it). */
export interface RelationEvent<T extends RelationEventType = RelationEventType> extends AgentEventBase<T> {
  readonly payload: RelationPayload;
  /** The user concerned. */
  readonly userId: string;
}

/** `artifact_response`: a user answered an artifact. */
export interface ArtifactResponseEvent extends AgentEventBase<'artifact_response'> {
  readonly payload: ArtifactResponsePayload;
  /** `payload.status`. */
  readonly status: string;
  /** Why the user denied it, when `status` is `denied`. */
  readonly deniedReason: ArtifactDeniedReason | undefined;
}

/** `reaction.update` (WebSocket only, sealed by the reacting member): a reaction to a message. */
export interface ReactionEvent extends AgentEventBase<'reaction.update'> {
  readonly payload: ReactionPayload;
  /** The message reacted to. */
  readonly targetMessageId: string;
  /** The emoji. */
  readonly emoji: string;
  /** `add` or `remove`. */
  readonly action: 'add' | 'remove';
}

/** `artifact.expired` (WebSocket only, sealed by `system`): an artifact's time to live ran out unanswered. */
export interface ArtifactExpiredEvent extends AgentEventBase<'artifact.expired'> {
  readonly payload: ArtifactExpiredPayload;
  /** The artifact. */
  readonly artifactId: string;
  /** Its revision when it expired. */
  readonly revision: number;
}

/** `agent.governance` (WebSocket only, cleartext): the platform changed the agent's governance level. */
export interface GovernanceEvent extends AgentEventBase<'agent.governance'> {
  readonly payload: GovernancePayload;
  /** `none`, `L1`, `L2` or `L3`. */
  readonly level: string;
  /** The reason given, if any. */
  readonly reason: string | null;
}

/** An event whose payload facts the service does not show: the payload is kept as-is. */
export interface GenericAgentEvent<T extends string = string> extends AgentEventBase<T> {
  readonly payload: Readonly<Record<string, unknown>>;
}

/** Handler events: the event types of the service and what their handlers receive. */
export interface AgentEventMap {
  'message.new': IncomingMessage;
  'relation.established': RelationEvent<'relation.established'>;
  'relation.revoked': RelationEvent<'relation.revoked'>;
  'relation.suspended': RelationEvent<'relation.suspended'>;
  'relation.restored': RelationEvent<'relation.restored'>;
  artifact_response: ArtifactResponseEvent;
  'agent.capability_changed': GenericAgentEvent<'agent.capability_changed'>;
  'agent.governance': GovernanceEvent;
  'reaction.update': ReactionEvent;
  'group.updated': GenericAgentEvent<'group.updated'>;
  'artifact.expired': ArtifactExpiredEvent;
  'system.group_key_rotated': GenericAgentEvent<'system.group_key_rotated'>;
  'grant.revoked': GenericAgentEvent<'grant.revoked'>;
}

/** A handler event type. */
export type AgentEventType = keyof AgentEventMap;

/** Any delivered event: a known one, or one of a type this SDK does not know (payload kept as-is). */
export type AnyAgentEvent = AgentEventMap[AgentEventType] | GenericAgentEvent;

/** An envelope could not be opened: the message is discarded, others are unaffected. */
export interface DecryptFailure {
  /** The delivery whose envelope failed. */
  readonly deliveryId: string;
  readonly transport: AgentTransport;
  /** The event type of the delivery. */
  readonly eventType: string;
  /** Which check failed (`DECRYPT_FAILURE`); undefined for `INVALID_ENVELOPE`. */
  readonly reason: DecryptFailureReason | undefined;
  readonly code: 'DECRYPT_FAILURE' | 'INVALID_ENVELOPE';
  /** From the delivery metadata (unsigned). */
  readonly conversationId: string | undefined;
  /** From the delivery metadata (unsigned). */
  readonly senderId: string | undefined;
  readonly error: CryptoError;
}

/**
 * Why a human decision was refused (docs/artifacts.md, docs/grants.md, docs/manifests.md):
 * - `unsigned`: a grant or manifest decision without the human's `signed_decision`;
 * - `bad_signature`: the signature does not verify under the signer's pinned key;
 * - `wrong_signer`: the signer is not the human who decides (the agent's owner, the grant's user);
 * - `signer_unknown`: the signer has no signing key the agent can look up;
 * - `mismatch`: the signed statement does not say what the event says (ids, kind, scope, window, version, manifest digest);
 * - `stale`: the statement's `decided_at` is outside the acceptance window;
 * - `not_a_member`: an artifact answer from someone not a human member the current revision was sealed for;
 * - `stale_revision`: an artifact answer for another revision than the current one;
 * - `sender_not_allowed`: an artifact answer whose status or reason does not fit its sender (`system` approving, a human claiming a service timeout);
 * - `legacy_envelope`: an artifact answer in a v1.0 envelope (no signed event type).
 */
export type DecisionRefusalReason =
  | 'unsigned'
  | 'bad_signature'
  | 'wrong_signer'
  | 'signer_unknown'
  | 'mismatch'
  | 'stale'
  | 'not_a_member'
  | 'stale_revision'
  | 'sender_not_allowed'
  | 'legacy_envelope';

/**
 * A human decision (`artifact_response`, `grant.decided`, `grant.revoked`,
 * `agent.capability_changed`) refused before any handler saw it: the event
 * is discarded, no artifact promise or `awaitDecision` settles on it.
 */
export interface DecisionRefusal {
  /** The delivery's event type. */
  readonly eventType: string;
  readonly reason: DecisionRefusalReason;
  /** The signed sender of the envelope (`system` for grant and manifest events). */
  readonly senderId: string;
  /** The signed conversation of the envelope. */
  readonly conversationId: string;
  /** The artifact id, grant id or manifest version the event is about, when it names one. */
  readonly subject: string | undefined;
  readonly deliveryId: string;
  readonly transport: AgentTransport;
  /** `CryptoError` `DECISION_REFUSED`, `params.reason` the reason. */
  readonly error: CryptoError;
}

/** A copy of an event already handled (or being handled) was skipped. */
export interface DuplicateInfo {
  readonly deliveryId: string;
  /** Set when the duplicate was recognised by its message id. */
  readonly messageId: string | undefined;
  /** Which id matched. */
  readonly by: 'delivery_id' | 'message_id';
  readonly transport: AgentTransport;
}

/**
 * Notifications of the Agent (listener arguments). Listeners are not
 * awaited; what they throw is logged and never reaches the SDK.
 */
export interface AgentNotificationMap {
  /** Every delivered event, after the listeners of its own type (awaited like a handler). */
  event: [event: AnyAgentEvent];
  /** An envelope could not be opened (reason typed); the message was discarded. */
  decryptFailure: [failure: DecryptFailure];
  /**
   * The one error channel: handler errors ({@link HandlerError} with `event`),
   * events that could not be processed (ref fetch, key lookup, invalid payload).
   * Without a listener these are logged.
   */
  error: [error: AmsError];
  /** The agent stopped for good (suspended, banned, token revoked or invalid, replaced …). */
  fatal: [error: AmsError, info: FatalInfo | undefined];
  /** The WebSocket authenticated. */
  connected: [info: { readonly attempt: number }];
  /** The WebSocket closed (a reconnect follows unless `fatal` or `close()`). */
  disconnected: [info: { readonly code: number; readonly reason: string }];
  /** The next WebSocket attempt comes after `delayMs`. */
  reconnecting: [info: { readonly attempt: number; readonly delayMs: number }];
  /**
   * Auto-recover found the agent `unreachable` and recovered it. `expired`
   * counts the events that waited 24 h and were dropped meanwhile (from the
   * delivery log): their senders got notices, but system events such as
   * `relation.established` had nobody to tell, so reconcile what depends on them.
   */
  recovered: [info: { readonly pendingCount: number; readonly expired: ExpiredEvents }];
  /** The service answered 429 despite the client-side limits (the request is retried). */
  rateLimited: [info: RateLimitedInfo];
  /** A duplicate was skipped. */
  duplicate: [info: DuplicateInfo];
  /** A human decision (artifact answer, grant or manifest decision) was refused and discarded. */
  decisionRefused: [refusal: DecisionRefusal];
  /** The `session.invalidated` frame (WebSocket only): the session was revoked; `fatal` follows. */
  sessionInvalidated: [];
  /** The `auth.expiring` frame (WebSocket only): the token's grace ends soon; call `agent.renewToken()`. */
  authExpiring: [info: { readonly expiresInSeconds: number | undefined }];
  /** A key-lifecycle event (`keys.created`, `keys.registered`, `keys.rotated`, `keys.mismatch_healed`). */
  keys: [event: KeyLifecycleEvent];
  /** `close()` finished. */
  closed: [info: CloseResult];
  /** A peer's keys differ from the pinned ones (see `keyChangePolicy`). */
  keyChanged: [event: KeyChangedEvent];
  /** The service listed a key of a peer that no trusted key vouches for (a ghost, or a killed generation); it is not used. */
  keyRefused: [event: KeyRefusedEvent];
  /** The recipients of a conversation differ from the set last sealed for. */
  membersChanged: [event: MembersChangedEvent];
  /**
   * The ghost detector: a message was also wrapped to a key listed under this
   * agent's id that is not in its key ring (a key the service slipped in).
   * The message itself is delivered; the warning names the fingerprints.
   */
  keyWarning: [warning: KeyWarning];
  /** Something works but deserves attention, e.g. `MANIFEST_SIZE_WARNING` (a manifest ≥ 64 KB). Also logged. */
  warning: [warning: AgentWarning];
  /** A human stopped the running turns of a conversation (a signed `turn.stop`; docs/agent.md, "Turns"). */
  turnStopped: [event: TurnStoppedEvent];
  /** A member edited one of its messages (a sealed, signed `message.edit`; not a `message.new`). */
  messageEdited: [event: MessageEdited];
  /** A member deleted one of its messages (a sealed, signed `message.delete`; not a `message.new`). */
  messageDeleted: [event: MessageDeleted];
  /** A member read messages (a sealed `receipt`; only with `readReceipts: true`). */
  messageRead: [event: MessageRead];
}

/** What `agent.close()` reports. */
export interface CloseResult {
  /** True when every started handler finished before the timeout. */
  readonly drained: boolean;
  /** Events received but not handled because the timeout passed first. */
  readonly abandoned: number;
}

/** Any listener-side event name: a handler event type or a notification. */
export type AgentListenerEvent = AgentEventType | keyof AgentNotificationMap;

/** Listener arguments of every event name. */
export type AgentListenerArgs = { [K in AgentEventType]: [event: AgentEventMap[K]] } & AgentNotificationMap;

/**
 * Event types sealed by the service itself: their envelope must be signed by
 * `system` (and `system` never signs `message.new`). The set of the one list,
 * `SYSTEM_SEALED_EVENT_TYPES` (core protocol model).
 */
export const SYSTEM_EVENT_TYPES: ReadonlySet<string> = new Set<string>(SYSTEM_SEALED_EVENT_TYPES);
