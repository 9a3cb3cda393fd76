/**
 * Wire schemas of conversations and messages: `POST|GET /conversations`,
 * `GET /conversations/:id` (with the members' public keys), the message
 * views of `POST /agents/:id/messages`, `POST /conversations/:id/messages`
 * and `GET /conversations/:id/messages`, and the user WebSocket's
 * `message.new` frame.
 *
 * The service shows conversation and message fields only as "not shown";
 * these are the reference server's (docs/reference-server.md). Loose objects.
 *
 * @module
 */
import * as z from '../../core/lazy-zod.js';
import { DeliveryMetadataSchema } from '../../core/protocol/webhook-delivery.js';
import { IdentifierSchema, TimestampWithZoneSchema } from '../../core/protocol/primitives.js';
import { GroupDetailSchema } from './groups.js';
import { PrincipalKeysSchema } from './keys.js';
import type { SameType } from '../../core/protocol/same-type.js';

/** A 1:1 conversation between a user and an agent. */
export const ConversationSchema = z.looseObject({
  conversation_id: IdentifierSchema,
  user_id: IdentifierSchema,
  agent_id: IdentifierSchema,
  state: z.string().min(1).max(32),
  created_at: TimestampWithZoneSchema.optional(),
  updated_at: TimestampWithZoneSchema.optional(),
});
/** A conversation (wire field names). */
export interface Conversation {
  [field: string]: unknown;
  conversation_id: string;
  user_id: string;
  agent_id: string;
  state: string;
  created_at?: string | undefined;
  updated_at?: string | undefined;
}
true satisfies SameType<z.output<typeof ConversationSchema>, Conversation>;

/** A list of conversations. */
export const ConversationListSchema = z.array(ConversationSchema);

/**
 * A member as listed by `GET /conversations/:id`: its public keys, or
 * `public_key: null` when the caller may not see them or there are none.
 */
export const ConversationMemberSchema = z.union([
  PrincipalKeysSchema,
  z.looseObject({ id: IdentifierSchema, kind: z.string().max(32).optional(), public_key: z.null() }),
]);
/** A conversation member (wire field names). */
export type ConversationMember = z.output<typeof ConversationMemberSchema>;

/** `GET /conversations/:id` of a one-to-one conversation: the conversation plus its members' public keys. */
export const DirectConversationDetailSchema = ConversationSchema.extend({
  members: z.array(ConversationMemberSchema).min(1).max(1024),
});
/** A one-to-one conversation with its members (wire field names). */
export type DirectConversationDetail = z.output<typeof DirectConversationDetailSchema>;

/**
 * `GET /conversations/:id`: a one-to-one conversation, or a group (`kind:
 * 'group'`, docs/groups.md), each with its members' public keys.
 */
export const ConversationDetailSchema = z.union([DirectConversationDetailSchema, GroupDetailSchema]);
/** A conversation of either kind with its members (wire field names). */
export type ConversationDetail = z.output<typeof ConversationDetailSchema>;

/** A sent message's view (the send endpoints answer it without `wire_envelope`). */
export const SentMessageSchema = z.looseObject({
  message_id: IdentifierSchema,
  conversation_id: IdentifierSchema,
  sender_id: IdentifierSchema.optional(),
  created_at: TimestampWithZoneSchema.optional(),
  received_at: TimestampWithZoneSchema.optional(),
  seq: z.number().int().nonnegative().optional(),
});
/** A sent message (wire field names). */
export type SentMessage = z.output<typeof SentMessageSchema>;

/** A stored message (`GET /conversations/:id/messages` items). */
export const StoredMessageSchema = SentMessageSchema.extend({
  sender_id: IdentifierSchema,
  seq: z.number().int().nonnegative(),
  wire_envelope: z.string().min(1),
});
/** A stored message (wire field names). */
export type StoredMessage = z.output<typeof StoredMessageSchema>;

/** The inbox page. */
export const StoredMessageListSchema = z.array(StoredMessageSchema);

/**
 * A message frame pushed to a user's WebSocket: `{ type, version, wire_envelope,
 * metadata, message_id, seq }` (`type` is `message.new`, or `delivery.failed`
 * for the system's delivery-failure notice).
 */
export const UserMessageFrameSchema = z.looseObject({
  type: z.string().min(1).max(100),
  wire_envelope: z.string().min(1),
  metadata: DeliveryMetadataSchema,
  message_id: IdentifierSchema.optional(),
  seq: z.number().int().nonnegative().optional(),
});
/** A message frame on the user WebSocket (wire field names). */
export type UserMessageFrame = z.output<typeof UserMessageFrameSchema>;
