/**
 * Wire schemas of groups (reference server answers, docs/groups.md): the
 * group view (`GET /groups`), the group detail with the members' public keys
 * (`POST /groups`, `GET /groups/:id`, `POST /groups/join`, and
 * `GET /conversations/:id` of a group), invites, rotations and leaving.
 * Loose objects: fields the SDK does not name are kept.
 *
 * @module
 */
import * as z from '../../core/lazy-zod.js';
import { GroupKeyVersionSchema } from '../../core/protocol/groups.js';
import { IdentifierSchema, TimestampWithZoneSchema } from '../../core/protocol/primitives.js';
import { PrincipalKeysSchema } from './keys.js';

const MAX_MEMBERS = 1024;

/** Membership fields of a group member. */
const membership = {
  id: IdentifierSchema,
  kind: z.string().min(1).max(32),
  role: z.string().min(1).max(32).optional(),
  joined_at: TimestampWithZoneSchema.optional(),
};

/** A member as the group view lists it. */
export const GroupMemberSchema = z.looseObject(membership);
/** A group member (wire field names). */
export type GroupMember = z.infer<typeof GroupMemberSchema>;

/** A member with its public keys, or `public_key: null` when it has none the caller may see. */
export const GroupMemberKeysSchema = z.union([
  PrincipalKeysSchema.extend(membership),
  z.looseObject({ ...membership, public_key: z.null() }),
]);
/** A group member with keys (wire field names). */
export type GroupMemberKeys = z.infer<typeof GroupMemberKeysSchema>;

const groupFields = {
  conversation_id: IdentifierSchema,
  kind: z.literal('group'),
  name: z.string().min(1).max(256),
  owner_id: IdentifierSchema,
  key_version: GroupKeyVersionSchema,
  created_at: TimestampWithZoneSchema.optional(),
  updated_at: TimestampWithZoneSchema.optional(),
};

/** A group (`GET /groups` items). */
export const GroupViewSchema = z.looseObject({
  ...groupFields,
  members: z.array(GroupMemberSchema).max(MAX_MEMBERS),
});
/** A group (wire field names). */
export type GroupView = z.infer<typeof GroupViewSchema>;

/** The caller's groups. */
export const GroupListSchema = z.array(GroupViewSchema);

/** A group with every member's public keys. */
export const GroupDetailSchema = z.looseObject({
  ...groupFields,
  members: z.array(GroupMemberKeysSchema).min(1).max(MAX_MEMBERS),
  joined: z.boolean().optional(),
  /**
   * The owner-signed roster (`SignedGroupRosterSchema`), null before the owner
   * published one; checked by the key directory's `GroupRosterBook`, never trusted as served.
   */
  roster: z.unknown().optional(),
});
/** A group with its members' keys (wire field names). */
export type GroupDetail = z.infer<typeof GroupDetailSchema>;

/** `POST /groups/:id/invites`. */
export const GroupInviteSchema = z.looseObject({
  code: z.string().min(1).max(32),
  conversation_id: IdentifierSchema,
  expires_at: TimestampWithZoneSchema.optional(),
});
/** An invite (wire field names). */
export type GroupInviteView = z.infer<typeof GroupInviteSchema>;

/** `POST /groups/:id/key/rotate`. */
export const GroupKeyRotationSchema = z.looseObject({
  conversation_id: IdentifierSchema,
  key_version: GroupKeyVersionSchema,
});

/** `POST /groups/:id/leave`. */
export const GroupLeaveSchema = z.looseObject({
  conversation_id: IdentifierSchema,
  left: z.literal(true),
  deleted: z.boolean().optional(),
});

/** `DELETE /groups/:id/members/:member_id`: the group after, or `deleted: true`. */
export const GroupRemovalSchema = z.union([
  GroupDetailSchema,
  z.looseObject({ conversation_id: IdentifierSchema, deleted: z.literal(true) }),
]);
