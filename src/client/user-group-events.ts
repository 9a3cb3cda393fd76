/**
 * The UserClient's group events: a received `group.updated` or
 * `system.group_key_rotated` (sealed by the system sender; the opening step
 * has checked that) becomes a `groupUpdated` / `groupKeyRotated` event
 * instead of a `message`, after the cached members and keys were dropped.
 *
 * @module
 */
import { ValidationError } from '../core/errors/validation-error.js';
import {
  GroupKeyRotatedPayloadSchema,
  GroupUpdatedPayloadSchema,
  type GroupKeyRotatedPayload,
  type GroupUpdatedPayload,
} from '../core/protocol/groups.js';
import type { Groups } from '../messaging/groups.js';
import type { ReceivedMessage } from './open-message.js';
import type { FailedMessage } from './user-client-types.js';

/** `group.updated`: someone joined, left or was removed, or the group was created. */
export interface GroupUpdatedEvent {
  readonly conversationId: string;
  /** `created`, `joined`, `left`, `removed`, or another value kept as-is. */
  readonly change: string;
  /** Who joined, left or was removed (the creator for `created`). */
  readonly memberId: string;
  readonly keyVersion: number;
  /** The members after the change. */
  readonly memberIds: readonly string[];
  readonly payload: GroupUpdatedPayload;
}

/** `system.group_key_rotated`: the group key version moved on. */
export interface GroupKeyRotatedEvent {
  readonly conversationId: string;
  readonly keyVersion: number;
  readonly previousVersion: number;
  /** `membership` or `requested` (another value kept as-is). */
  readonly reason: string;
  /** Who caused it (the member who joined or left, or who asked). */
  readonly rotatedBy: string;
  readonly payload: GroupKeyRotatedPayload;
}

/** Where the events go. */
export interface GroupEventSink {
  groupUpdated(event: GroupUpdatedEvent): void;
  groupKeyRotated(event: GroupKeyRotatedEvent): void;
  messageFailed(failure: FailedMessage): void;
}

function invalid(m: ReceivedMessage): FailedMessage {
  return {
    messageId: m.messageId,
    seq: m.seq,
    conversationId: m.conversationId,
    error: new ValidationError({ message: `A ${m.event} event with an invalid payload was discarded.` }),
  };
}

/**
 * Handles `message` when it is a group event; returns false for anything else
 * (which the caller emits as a message).
 */
export function handleGroupEvent(m: ReceivedMessage, groups: Groups, sink: GroupEventSink): boolean {
  if (m.event === 'group.updated') {
    groups.observe(m.event, m.conversationId);
    const p = GroupUpdatedPayloadSchema.safeParse(m.payload);
    if (!p.success) sink.messageFailed(invalid(m));
    else {
      sink.groupUpdated({
        conversationId: m.conversationId,
        change: p.data.change,
        memberId: p.data.member_id,
        keyVersion: p.data.key_version,
        memberIds: p.data.member_ids,
        payload: p.data,
      });
    }
    return true;
  }
  if (m.event === 'system.group_key_rotated') {
    groups.observe(m.event, m.conversationId);
    const p = GroupKeyRotatedPayloadSchema.safeParse(m.payload);
    if (!p.success) sink.messageFailed(invalid(m));
    else {
      sink.groupKeyRotated({
        conversationId: m.conversationId,
        keyVersion: p.data.key_version,
        previousVersion: p.data.previous_version,
        reason: p.data.reason,
        rotatedBy: p.data.rotated_by,
        payload: p.data,
      });
    }
    return true;
  }
  return false;
}
