/**
 * The UserClient's group events: a received `group.updated` or
 * `system.group_key_rotated` (sealed by the system sender; the opening step
 * has checked that) becomes a `groupUpdated` / `groupKeyRotated` event
 * instead of a `message`, after the cached members and keys were dropped.
 *
 * @module
 */
import { ValidationError } from '../core/errors/validation-error.js';
import { GroupKeyRotatedPayloadSchema, GroupUpdatedPayloadSchema } from '../core/protocol/groups.js';
import type { Groups } from '../messaging/groups.js';
import type { ReceivedMessage } from './open-message.js';
import type { FailedMessage, GroupKeyRotatedEvent, GroupUpdatedEvent } from './user-client-types.js';

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
