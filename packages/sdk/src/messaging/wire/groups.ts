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
import type { SameType } from '../../core/protocol/same-type.js';
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
/**
 * A group member (wire field names). Hand-written so that the root entry's
 * declarations (`GroupInfo.view`) name no zod type; checked against the schema below.
 */
export interface GroupMember {
  [field: string]: unknown;
  id: string;
  kind: string;
  role?: string | undefined;
  joined_at?: string | undefined;
}
true satisfies SameType<z.output<typeof GroupMemberSchema>, GroupMember>;

/** A member with its public keys, or `public_key: null` when it has none the caller may see. */
export const GroupMemberKeysSchema = z.union([
  PrincipalKeysSchema.extend(membership),
  z.looseObject({ ...membership, public_key: z.null() }),
]);
/** A group member with keys (wire field names): its keys, or `public_key: null`. */
export type GroupMemberKeys = GroupMemberWithKeys | (GroupMember & { public_key: null });
/** A group member with its public keys (wire field names). */
export interface GroupMemberWithKeys extends GroupMember {
  public_key: string;
  signing_public_key?: string | null | undefined;
  key_id?: string | null | undefined;
  signing_key_id?: string | null | undefined;
  retired?:
    | {
        [field: string]: unknown;
        public_key: string;
        signing_public_key?: string | null | undefined;
        key_id?: string | null | undefined;
        valid_until?: string | null | undefined;
        retired_at?: string | null | undefined;
      }[]
    | undefined;
  generation?: number | null | undefined;
  key_statements?:
    | {
        v: 1;
        subject: string;
        generation: number;
        public_key: string;
        signing_public_key: string;
        previous_key_id: string;
        issued_at: string;
        signature: string;
      }[]
    | undefined;
}
true satisfies SameType<z.output<typeof GroupMemberKeysSchema>, GroupMemberKeys>;

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
/** The fields every group answer has (wire field names). */
export interface GroupFields {
  [field: string]: unknown;
  conversation_id: string;
  kind: 'group';
  name: string;
  owner_id: string;
  key_version: number;
  created_at?: string | undefined;
  updated_at?: string | undefined;
}
/** A group (wire field names). */
export interface GroupView extends GroupFields {
  members: GroupMember[];
}
true satisfies SameType<z.output<typeof GroupViewSchema>, GroupView>;

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
export interface GroupDetail extends GroupFields {
  members: GroupMemberKeys[];
  joined?: boolean | undefined;
  roster?: unknown;
}
true satisfies SameType<z.output<typeof GroupDetailSchema>, GroupDetail>;

/** `POST /groups/:id/invites`. */
export const GroupInviteSchema = z.looseObject({
  code: z.string().min(1).max(32),
  conversation_id: IdentifierSchema,
  expires_at: TimestampWithZoneSchema.optional(),
});
/** An invite (wire field names). */
export type GroupInviteView = z.output<typeof GroupInviteSchema>;

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
