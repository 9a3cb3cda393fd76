/**
 * Groups for both clients: `agent.groups` ({@link Groups}) and
 * `client.groups` ({@link UserGroups}, which also creates groups and removes
 * members). A group is a conversation: send to it with `agent.send` /
 * `client.send` and its conversation id; the sender seals for every member
 * because `GET /conversations/:id` lists them all.
 *
 * Key versions: {@link Groups.rotateKey} reads the current version, asks
 * for the next one with `based_on_version`, and on
 * `GROUP_KEY_VERSION_CONFLICT` (someone rotated first) reads again and
 * retries (at most `maxAttempts`). `GROUP_KEY_ROTATION_LIMIT` surfaces as a
 * {@link RateLimitError} whose `retryAfterMs` says when a rotation will be
 * accepted again. The events `group.updated` and `system.group_key_rotated`
 * drop the cached member list and the members' keys, so the next message is
 * sealed for exactly the current members.
 *
 * @module
 */
import { isServiceError } from '../core/errors/guards.js';
import { parseInviteCode } from '../core/protocol/groups.js';
import { routePath, SERVICE_ROUTES } from '../core/protocol/service-names.js';
import type { RestClient } from '../transport/rest/client.js';
import type { KeyDirectory } from './key-directory.js';
import {
  GroupDetailSchema,
  GroupInviteSchema,
  GroupKeyRotationSchema,
  GroupLeaveSchema,
  GroupListSchema,
  GroupRemovalSchema,
  type GroupDetail,
  type GroupView,
} from './wire/groups.js';

/** A member of a group. */
export interface GroupMemberInfo {
  readonly id: string;
  /** `user`, `agent`, or another value kept as-is. */
  readonly kind: string;
  /** `owner` or `member` (another value kept as-is). */
  readonly role: string;
  /** True when the service listed public keys for it (senders wrap to them). */
  readonly hasKeys: boolean;
}

/** A group. */
export interface GroupInfo {
  /** The group's conversation id: send to it like to any conversation. */
  readonly conversationId: string;
  readonly name: string;
  readonly ownerId: string;
  /** The current group key version. */
  readonly keyVersion: number;
  readonly members: readonly GroupMemberInfo[];
  /** The whole answer (wire field names). */
  readonly view: GroupView | GroupDetail;
}

/** A one-time invite code (a secret of the group: share it with the invitee only, never log it). */
export interface GroupInvite {
  /** `XXXX-XXXX-XXXX`. */
  readonly code: string;
  readonly conversationId: string;
  /** When the code stops working unless used first, ms since the epoch. */
  readonly expiresAtMs: number | undefined;
}

/** Options of {@link Groups.rotateKey}. */
export interface RotateGroupKeyOptions {
  /** The version the caller last read. @defaultValue read with `GET /groups/:id` first */
  basedOnVersion?: number;
  /** Attempts when another rotation wins (each re-reads the version). @defaultValue 3 */
  maxAttempts?: number;
}

/** The outcome of a rotation. */
export interface GroupKeyRotationResult {
  readonly conversationId: string;
  /** The new key version. */
  readonly keyVersion: number;
  /** Requests made (more than 1 after version conflicts). */
  readonly attempts: number;
}

/** What the group calls need. */
export interface GroupsDeps {
  readonly rest: RestClient;
  /** The client's key directory, whose cached members and keys group events drop. */
  readonly directory: KeyDirectory;
}

function memberOf(m: GroupDetail['members'][number] | GroupView['members'][number]): GroupMemberInfo {
  const keys = (m as { public_key?: unknown }).public_key;
  return { id: m.id, kind: m.kind, role: m.role ?? 'member', hasKeys: typeof keys === 'string' };
}

/** Maps a group answer. */
export function groupInfo(view: GroupView | GroupDetail): GroupInfo {
  return {
    conversationId: view.conversation_id,
    name: view.name,
    ownerId: view.owner_id,
    keyVersion: view.key_version,
    members: view.members.map(memberOf),
    view,
  };
}

const GROUP_EVENT_TYPES: ReadonlySet<string> = new Set(['group.updated', 'system.group_key_rotated']);

/** What every member (human or agent) can do with groups. */
export class Groups {
  protected readonly d: GroupsDeps;

  constructor(deps: GroupsDeps) {
    this.d = deps;
  }

  /** `GET /groups`: the groups this client is a member of. */
  async list(): Promise<GroupInfo[]> {
    return (await this.d.rest.get(SERVICE_ROUTES.listGroups.path, { schema: GroupListSchema })).map(
      groupInfo,
    );
  }

  /**
   * `GET /groups/:id`: the group with its members and key version.
   *
   * @throws {@link ServiceError} `GROUP_NOT_FOUND` (unknown, or not a member).
   */
  async get(conversationId: string): Promise<GroupInfo> {
    const path = routePath(SERVICE_ROUTES.getGroup, { id: conversationId });
    return groupInfo(await this.d.rest.get(path, { schema: GroupDetailSchema }));
  }

  /** The members of a group (with whether the service has keys for each). */
  async members(conversationId: string): Promise<readonly GroupMemberInfo[]> {
    return (await this.get(conversationId)).members;
  }

  /**
   * `POST /groups/:id/invites`: a new one-time invite code.
   *
   * @throws {@link ServiceError} `GROUP_NOT_FOUND`.
   */
  async invite(conversationId: string): Promise<GroupInvite> {
    const path = routePath(SERVICE_ROUTES.createInvite, { id: conversationId });
    const i = await this.d.rest.post(path, {}, { schema: GroupInviteSchema });
    return {
      code: i.code,
      conversationId: i.conversation_id,
      expiresAtMs: i.expires_at === undefined ? undefined : Date.parse(i.expires_at),
    };
  }

  /**
   * `POST /groups/join`: joins the group of an invite code (typed in any case,
   * with or without hyphens). The code is used up.
   *
   * @throws {@link ValidationError} for text that cannot be an invite code (nothing is sent);
   * {@link ServiceError} `INVITE_CODE_NOT_FOUND` (unknown, used or expired), `GROUP_NOT_FOUND`.
   */
  async join(code: string): Promise<GroupInfo> {
    const body = { code: parseInviteCode(code) };
    const g = await this.d.rest.post(SERVICE_ROUTES.joinGroup.path, body, { schema: GroupDetailSchema });
    this.#forget(g.conversation_id);
    return groupInfo(g);
  }

  /**
   * `POST /groups/:id/leave`. Resolves `{ deleted: true }` when the group
   * had no other human and was deleted.
   *
   * @throws {@link ServiceError} `GROUP_NOT_FOUND`.
   */
  async leave(conversationId: string): Promise<{ readonly deleted: boolean }> {
    const path = routePath(SERVICE_ROUTES.leaveGroup, { id: conversationId });
    const r = await this.d.rest.post(path, {}, { schema: GroupLeaveSchema });
    this.d.directory.invalidateConversation(conversationId);
    return { deleted: r.deleted === true };
  }

  /**
   * Starts a new group key version, re-reading and retrying on
   * `GROUP_KEY_VERSION_CONFLICT`.
   *
   * @throws {@link RateLimitError} `GROUP_KEY_ROTATION_LIMIT` with `retryAfterMs`;
   * {@link ServiceError} `GROUP_KEY_VERSION_CONFLICT` once `maxAttempts` are spent, `GROUP_NOT_FOUND`.
   * @example
   * ```ts
   * const { keyVersion } = await agent.groups.rotateKey(conversationId);
   * ```
   */
  async rotateKey(
    conversationId: string,
    options: RotateGroupKeyOptions = {},
  ): Promise<GroupKeyRotationResult> {
    const max = Math.max(1, options.maxAttempts ?? 3);
    const path = routePath(SERVICE_ROUTES.rotateGroupKey, { id: conversationId });
    let based = options.basedOnVersion ?? (await this.get(conversationId)).keyVersion;
    for (let attempt = 1; ; attempt++) {
      try {
        const r = await this.d.rest.post(
          path,
          { based_on_version: based },
          { schema: GroupKeyRotationSchema },
        );
        this.#forget(conversationId);
        return { conversationId, keyVersion: r.key_version, attempts: attempt };
      } catch (err) {
        if (!isServiceError(err, 'GROUP_KEY_VERSION_CONFLICT') || attempt >= max) throw err;
        based = (await this.get(conversationId)).keyVersion;
      }
    }
  }

  /**
   * Reacts to a delivered event: `group.updated` and
   * `system.group_key_rotated` drop the cached members and their keys, so
   * the next message is sealed for the current members. Other types are ignored.
   */
  observe(type: string, conversationId: string): void {
    if (GROUP_EVENT_TYPES.has(type)) this.#forget(conversationId);
  }

  /** Drops the cached member list of a group and the keys of the members it listed. */
  #forget(conversationId: string): void {
    const { directory } = this.d;
    void directory
      .conversationMembers(conversationId)
      .then(
        (ids) => ids.forEach((id) => directory.invalidate(id)),
        () => undefined,
      )
      .finally(() => directory.invalidateConversation(conversationId));
    directory.invalidateConversation(conversationId);
  }
}

/** What a human member can do besides: create groups and remove members (as owner). */
export class UserGroups extends Groups {
  /**
   * `POST /groups`: creates a group with this user as owner and the agents
   * named (owned by the user, or in an established relation with them).
   *
   * @throws {@link ServiceError} `AGENT_NOT_FOUND`, `AGENT_NOT_REGISTERED`, `KEY_BACKUP_NOT_FOUND`,
   * `VALIDATION_ERROR` (name 1 to 64 characters, at most 32 agents).
   * @example
   * ```ts
   * const group = await client.groups.create({ name: 'Release crew', agentIds: [agentId] });
   * await client.send(group.conversationId, { type: 'text', text: 'hello all' });
   * ```
   */
  async create(options: { name: string; agentIds?: readonly string[] }): Promise<GroupInfo> {
    const body = { name: options.name, agent_ids: [...(options.agentIds ?? [])] };
    return groupInfo(
      await this.d.rest.post(SERVICE_ROUTES.createGroup.path, body, { schema: GroupDetailSchema }),
    );
  }

  /**
   * `DELETE /groups/:id/members/:member_id` (the owner only). Resolves the
   * group after, or undefined when it was deleted.
   *
   * @throws {@link ServiceError} `FORBIDDEN` (not the owner), `GROUP_NOT_FOUND`, `NOT_FOUND` (not a member).
   */
  async remove(conversationId: string, memberId: string): Promise<GroupInfo | undefined> {
    const path = routePath(SERVICE_ROUTES.removeMember, { id: conversationId, member_id: memberId });
    const r = await this.d.rest.delete(path, { schema: GroupRemovalSchema });
    this.observe('group.updated', conversationId);
    return 'deleted' in r && r.deleted === true ? undefined : groupInfo(r as GroupDetail);
  }
}
