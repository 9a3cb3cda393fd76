/**
 * Turns an opened envelope (or a cleartext frame) into the typed event a
 * handler receives.
 *
 * Rules:
 * - identity fields of a sealed event come from the signed envelope;
 * - `message.new` payloads must be message payloads (`type` plus fields);
 * - the delivery's type must fit the envelope (signed event type, system
 *   sender): checked before this, by the pipeline, see `delivery-checks.ts`;
 * - service events (relation.*, …) must arrive sealed, not in cleartext;
 * - `artifact_response` payloads are checked (a denied one needs a known reason);
 * - `reaction.update` and `artifact.expired` payloads are checked (docs/artifacts.md);
 * - `agent.governance` carries a cleartext `{ agent_id, level, reason }`;
 * - other types keep their payload as-is.
 *
 * @module
 */
import { replyStreamInto, type StreamOpener, type TextChunkSource } from '../streams/reply-stream.js';
import type { StreamWriterOptions } from '../streams/writer.js';
import type { SendOptions } from '../../messaging/sender.js';
import type { ArtifactDeniedReason } from '../../core/errors/codes.js';
import { ValidationError } from '../../core/errors/validation-error.js';
import { parseEventPayload } from '../../core/protocol/events.js';
import { parseWith } from '../../core/protocol/parse.js';
import { ArtifactExpiredPayloadSchema, parseReactionPayload } from '../../core/protocol/artifacts.js';
import { SYSTEM_SENDER_ID } from '../../core/protocol/system-events.js';
import { isTextPayload, parseMessagePayload, type MessagePayload } from '../../core/protocol/payloads.js';
import type { OpenedEnvelope } from '../../crypto/open-options.js';
import {
  GovernancePayloadSchema,
  RelationPayloadSchema,
  SYSTEM_EVENT_TYPES,
  type AgentEventBase,
  type AgentTransport,
  type AnyAgentEvent,
  type IncomingMessage,
  type SendResult,
} from '../events.js';
import type { InboundEvent } from './types.js';

/** The sender id of events the service itself originates. */
export const SYSTEM_SENDER = SYSTEM_SENDER_ID;

/** What the builder needs besides the event. */
export interface BuildContext {
  readonly transport: AgentTransport;
  /** The delivery id to report (empty when the frame carried none). */
  readonly deliveryId: string;
  /** Now, for cleartext events without metadata. */
  readonly nowMs: number;
  /** Sends into a conversation (for `reply`). */
  send(conversationId: string, payload: MessagePayload | string, options?: SendOptions): Promise<SendResult>;
  /** Opens a streamed reply (for `replyStream`); absent outside an Agent. */
  readonly stream?: StreamOpener | undefined;
}

function invalid(message: string, path: string): ValidationError {
  return new ValidationError({ message, issues: [{ path: [path], message }] });
}

function payloadOf(opened: OpenedEnvelope): Record<string, unknown> {
  return opened.payload as Record<string, unknown>;
}

function messageEvent(base: AgentEventBase<'message.new'>, opened: OpenedEnvelope, ctx: BuildContext) {
  const payload = parseMessagePayload(opened.payload);
  const conversationId = opened.conversationId;
  const event: IncomingMessage = {
    ...base,
    messageId: opened.messageId,
    sealed: true,
    payload,
    text: isTextPayload(payload) ? payload.text : undefined,
    reply: (reply, options) => ctx.send(conversationId, reply, options),
    replyStream: ((sourceOrOptions?: TextChunkSource | StreamWriterOptions, options?: StreamWriterOptions) =>
      replyStreamInto(
        ctx.stream,
        conversationId,
        'message.new',
        sourceOrOptions,
        options,
      )) as IncomingMessage['replyStream'],
  };
  return event;
}

function typed(base: AgentEventBase, payload: Record<string, unknown>): AnyAgentEvent {
  const type = base.type;
  if (type.startsWith('relation.') && SYSTEM_EVENT_TYPES.has(type)) {
    const p = parseWith(RelationPayloadSchema, payload, `${type} payload`);
    return { ...base, type, payload: p, userId: p.user_id } as AnyAgentEvent;
  }
  if (type === 'artifact_response') {
    const p = parseEventPayload('artifact_response', payload);
    const deniedReason = (p.status === 'denied' ? p.reason : undefined) as ArtifactDeniedReason | undefined;
    return { ...base, type, payload: p, status: p.status, deniedReason };
  }
  if (type === 'reaction.update') {
    const p = parseReactionPayload(payload);
    return { ...base, type, payload: p, targetMessageId: p.message_id, emoji: p.emoji, action: p.action };
  }
  if (type === 'artifact.expired') {
    const p = parseWith(ArtifactExpiredPayloadSchema, payload, 'artifact.expired payload');
    return { ...base, type, payload: p, artifactId: p.artifact_id, revision: p.revision };
  }
  if (type === 'agent.governance') {
    const p = parseWith(GovernancePayloadSchema, payload, 'agent.governance payload');
    return { ...base, type, payload: p, level: p.level, reason: p.reason ?? null };
  }
  return { ...base, payload: type === 'grant.revoked' ? parseEventPayload(type, payload) : payload };
}

/**
 * The typed event of an opened envelope (whose type and sender the pipeline
 * has already checked, see `delivery-checks.ts`).
 *
 * @throws {@link ValidationError} when the payload does not fit its type.
 */
export function eventFromEnvelope(
  inbound: InboundEvent,
  opened: OpenedEnvelope,
  ctx: BuildContext,
): AnyAgentEvent {
  const base: AgentEventBase = {
    type: inbound.type,
    deliveryId: ctx.deliveryId,
    transport: ctx.transport,
    conversationId: opened.conversationId,
    senderId: opened.senderId,
    createdAt: opened.createdAt,
    messageId: opened.messageId,
    sealed: true,
  };
  if (inbound.type === 'message.new') {
    return messageEvent(base as AgentEventBase<'message.new'>, opened, ctx);
  }
  return typed(base, payloadOf(opened));
}

/**
 * The typed event of a cleartext frame (no envelope), e.g. `agent.governance`.
 *
 * @throws {@link ValidationError} for `message.new` and relation events (they
 * must be sealed) and for payloads that do not fit their type.
 */
export function eventFromCleartext(inbound: InboundEvent, ctx: BuildContext): AnyAgentEvent {
  if (inbound.type === 'message.new' || SYSTEM_EVENT_TYPES.has(inbound.type)) {
    throw invalid(`A ${inbound.type} event must arrive in an envelope.`, 'wire_envelope');
  }
  const base: AgentEventBase = {
    type: inbound.type,
    deliveryId: ctx.deliveryId,
    transport: ctx.transport,
    conversationId: inbound.metadata?.conversation_id ?? 'system',
    senderId: inbound.metadata?.sender_id ?? SYSTEM_SENDER,
    createdAt: inbound.metadata?.created_at ?? new Date(ctx.nowMs).toISOString(),
    messageId: undefined,
    sealed: false,
  };
  return typed(base, { ...(inbound.payload ?? {}) });
}
