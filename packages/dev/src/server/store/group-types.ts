/**
 * State of groups: a group is a conversation with several humans and agents,
 * kept as its own record keyed by the conversation id (one-to-one
 * conversations stay {@link ConversationRecord}s, untouched), plus one-time
 * invite codes. Same rules as `types.ts`: every read-then-write rule is one
 * atomic store method; times are ms since the epoch from the server's clock.
 *
 * @module
 */

/** Who a member is. */
export type GroupMemberKind = 'user' | 'agent';

/** One member of a group. */
export interface GroupMember {
  readonly id: string;
  readonly kind: GroupMemberKind;
  /** The owner (a human) may remove members; every other member is `member`. */
  readonly role: 'owner' | 'member';
  readonly joinedAtMs: number;
}

/** A group. */
export interface GroupRecord {
  /** The group's conversation id (messages use the conversation routes). */
  readonly conversationId: string;
  readonly name: string;
  readonly ownerId: string;
  /** Current members, in joining order. */
  readonly members: readonly GroupMember[];
  /** The group key version: 1 at creation, one more per rotation. */
  readonly keyVersion: number;
  /** Times of the rotations inside the last rotation window (for the 6-per-hour limit). */
  readonly rotationsMs: readonly number[];
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
  /**
   * The roster the owner signed last (docs/groups.md, "Signed roster"), as
   * published; absent until the owner publishes version 1. The server keeps
   * and serves it; members' clients check it.
   */
  readonly roster?: GroupRosterRecord;
}

/** The owner-signed roster of a group, as the owner published it. */
export interface GroupRosterRecord {
  readonly version: number;
  /** The owner the roster names (the service's owner follows it when the owner leaves). */
  readonly ownerId: string;
  readonly memberIds: readonly string[];
  /** The signed roster, served as is in the group detail. */
  readonly signed: unknown;
}

/** A one-time invite code. */
export interface InviteRecord {
  /** Canonical form, `XXXX-XXXX-XXXX`. */
  readonly code: string;
  readonly conversationId: string;
  readonly createdBy: string;
  readonly createdAtMs: number;
  readonly expiresAtMs: number;
}

/** What a change function returns: the new record, or a refusal passed back unchanged. */
export type GroupChangeResult<R> = GroupRecord | { readonly refused: R };

/** Groups and invite codes. */
export interface GroupStore {
  /** Stores a new group. */
  create(group: GroupRecord): Promise<GroupRecord>;
  get(conversationId: string): Promise<GroupRecord | undefined>;
  /** The groups `memberId` belongs to, oldest first. */
  listByMember(memberId: string): Promise<readonly GroupRecord[]>;
  /**
   * Applies `change` atomically; `null` from `change` deletes the group.
   * Undefined when the group does not exist.
   */
  update<R>(
    conversationId: string,
    change: (group: GroupRecord) => GroupChangeResult<R> | null,
  ): Promise<GroupChangeResult<R> | null | undefined>;
  /** Stores an invite code. */
  putInvite(invite: InviteRecord): Promise<void>;
  /**
   * Redeems an invite code atomically: when it exists, is unexpired and its
   * group exists, `change` is applied to the group; the code is used up only
   * when `change` returns a record that differs from the one it was given.
   * `'no_invite'` for an unknown, used or expired code; `'no_group'` when its group is gone.
   */
  redeemInvite<R>(
    code: string,
    nowMs: number,
    change: (group: GroupRecord, invite: InviteRecord) => GroupChangeResult<R>,
  ): Promise<GroupChangeResult<R> | 'no_invite' | 'no_group'>;
}
