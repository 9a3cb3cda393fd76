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
 * Signed roster (docs/groups.md): the owner's {@link UserGroups} signs a new
 * roster version at each change it makes (create, remove, leave as owner,
 * {@link UserGroups.admit} of members who joined by code), and every member's
 * sender seals only to the roster's members under the keys it binds.
 *
 * @module
 */
import { ConfigurationError } from '../core/errors/configuration-error.js';
import { isServiceError } from '../core/errors/guards.js';
import { parseInviteCode } from '../core/protocol/groups.js';
import { routePath, SERVICE_ROUTES } from '../core/protocol/service-names.js';
import {
  GROUP_ROSTER_FORMAT,
  type GroupRoster,
  type GroupRosterMember,
} from '../core/protocol/group-roster.js';
import type { CryptoBackend, RawKeyPair } from '../crypto/backend/types.js';
import type { RestClient } from '../transport/rest/client.js';
import type { KeyDirectory } from './key-directory.js';
import { groupRosterError, rosterFingerprint, signGroupRoster } from './roster.js';
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
  /**
   * The signed-in user and their Ed25519 key pair (the owner signs rosters
   * with it); undefined while signed out. Agents have none (an agent is never an owner).
   */
  readonly signer?: () => { readonly id: string; readonly signing: RawKeyPair | undefined } | undefined;
  /** Crypto backend of roster signatures. @defaultValue node:crypto on Node, else portable */
  readonly backend?: CryptoBackend;
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

  /**
   * The group's owner-signed roster, checked against the last one this
   * client accepted (versions only go forward).
   *
   * @throws {@link CryptoError} `GROUP_ROSTER_INVALID` (missing, replayed, badly signed);
   * {@link ServiceError} `GROUP_NOT_FOUND`.
   */
  async roster(conversationId: string): Promise<GroupRoster> {
    this.d.directory.invalidateConversation(conversationId);
    const m = await this.d.directory.groupMembership(conversationId);
    if (m === undefined) throw groupRosterError(conversationId, 'missing');
    return m.roster;
  }

  /** Drops the cached member list of a group and the keys of the members it listed. */
  protected forget(conversationId: string): void {
    this.#forget(conversationId);
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
    const me = this.#me();
    const body = { name: options.name, agent_ids: [...(options.agentIds ?? [])] };
    const g = await this.d.rest.post(SERVICE_ROUTES.createGroup.path, body, { schema: GroupDetailSchema });
    // Version 1 names only this user and the agents asked for, whatever else the answer lists.
    const asked = new Set([me.id, ...body.agent_ids]);
    const members: GroupRosterMember[] = [];
    for (const m of g.members) {
      if (!asked.has(m.id) || (m.kind !== 'user' && m.kind !== 'agent')) continue;
      members.push(await this.#entry(m.id, m.kind));
    }
    await this.#publish(g.conversation_id, { version: 1, ownerId: me.id, members });
    return this.get(g.conversation_id);
  }

  /**
   * `DELETE /groups/:id/members/:member_id` (the owner only), then a new
   * roster version without the member, signed by this owner: from then on no
   * member's client seals to her, even if the service keeps listing her.
   * Resolves the group after, or undefined when it was deleted.
   *
   * @throws {@link ServiceError} `FORBIDDEN` (not the owner), `GROUP_NOT_FOUND`, `NOT_FOUND` (not a member);
   * {@link CryptoError} `GROUP_ROSTER_INVALID` (the group's roster is not acceptable).
   */
  async remove(conversationId: string, memberId: string): Promise<GroupInfo | undefined> {
    const path = routePath(SERVICE_ROUTES.removeMember, { id: conversationId, member_id: memberId });
    const r = await this.d.rest.delete(path, { schema: GroupRemovalSchema });
    this.observe('group.updated', conversationId);
    if ('deleted' in r && r.deleted === true) return undefined;
    await this.#next(conversationId, { drop: [memberId] });
    return this.get(conversationId);
  }

  /**
   * Signs a new roster version that admits members who joined by invite code
   * (listed by the service, not yet in the roster), binding their current
   * keys as this client's key directory (and pins) gives them; until then no
   * member seals to them. Also re-binds the keys of `memberIds` already in
   * the roster (after a member's key rotation). Members the service no longer
   * lists are dropped. The owner only.
   *
   * A hostile service can list a member who never joined: admit only members
   * you expect (pass `memberIds`), or use `groupAdmission: 'manual'`.
   *
   * @param memberIds - whom to admit or re-bind. @defaultValue every listed member outside the roster
   * @returns the ids admitted (none when nothing changed).
   * @throws {@link CryptoError} `GROUP_ROSTER_INVALID`; {@link ConfigurationError} when signed out
   * or without a signing key; {@link ServiceError} `GROUP_NOT_FOUND`; {@link CryptoError} `GROUP_ROSTER_INVALID` `not_owner`
   * (this user is not the owner the roster names).
   */
  async admit(conversationId: string, memberIds?: readonly string[]): Promise<readonly string[]> {
    return this.#next(conversationId, { admit: memberIds ?? 'listed' });
  }

  /**
   * `POST /groups/:id/leave`. The owner first signs a roster version without
   * itself that names the longest-standing other human as owner (the member
   * the service makes owner), so the group stays signed after it leaves.
   *
   * @throws {@link ServiceError} `GROUP_NOT_FOUND`; {@link CryptoError} `GROUP_ROSTER_INVALID`.
   */
  override async leave(conversationId: string): Promise<{ readonly deleted: boolean }> {
    const me = this.d.signer?.();
    const m = me === undefined ? undefined : await this.d.directory.groupMembership(conversationId);
    if (me !== undefined && m !== undefined && m.roster.owner_id === me.id) {
      const listed = (await this.get(conversationId)).members;
      const heir = listed.find(
        (x) => x.id !== me.id && x.kind === 'user' && m.roster.members.some((r) => r.id === x.id),
      );
      if (heir !== undefined) await this.#next(conversationId, { drop: [me.id], ownerId: heir.id });
    }
    return super.leave(conversationId);
  }

  #me(): { readonly id: string; readonly signing: RawKeyPair } {
    const me = this.d.signer?.();
    if (me?.signing === undefined) {
      throw new ConfigurationError({
        option: 'keys',
        message: 'Signing group rosters needs a signed-in user with a signing key (setUpKeys or unlockKeys).',
      });
    }
    return { id: me.id, signing: me.signing };
  }

  async #entry(id: string, kind: 'user' | 'agent'): Promise<GroupRosterMember> {
    const k = await this.d.directory.keys(id);
    return {
      id,
      kind,
      enc: rosterFingerprint(k.encryption, this.d.backend),
      sig: k.signing === undefined ? null : rosterFingerprint(k.signing, this.d.backend),
    };
  }

  readonly #queue = new Map<string, Promise<unknown>>();

  /** Signs and publishes the next roster version, one change at a time per group. */
  #next(
    conversationId: string,
    change: { drop?: readonly string[]; admit?: readonly string[] | 'listed'; ownerId?: string },
  ): Promise<readonly string[]> {
    const before = this.#queue.get(conversationId) ?? Promise.resolve();
    const run = before.then(
      () => this.#change(conversationId, change),
      () => this.#change(conversationId, change),
    );
    const tail = run.catch(() => undefined);
    this.#queue.set(conversationId, tail);
    void tail.then(() => this.#queue.get(conversationId) === tail && this.#queue.delete(conversationId));
    return run;
  }

  /** Signs and publishes the next roster version. Returns the ids newly admitted or re-bound. */
  async #change(
    conversationId: string,
    change: { drop?: readonly string[]; admit?: readonly string[] | 'listed'; ownerId?: string },
  ): Promise<readonly string[]> {
    const me = this.#me();
    this.d.directory.invalidateConversation(conversationId);
    const current = await this.roster(conversationId);
    if (current.owner_id !== me.id) throw groupRosterError(conversationId, 'not_owner');
    const listed = await this.get(conversationId);
    const kinds = new Map(listed.members.map((m) => [m.id, m.kind]));
    const drop = new Set(change.drop ?? []);
    const members = new Map<string, GroupRosterMember>();
    for (const m of current.members) if (kinds.has(m.id) && !drop.has(m.id)) members.set(m.id, m);
    const admitted: string[] = [];
    const wanted =
      change.admit === 'listed'
        ? listed.members.filter((m) => !members.has(m.id)).map((m) => m.id)
        : (change.admit ?? []);
    for (const id of wanted) {
      const kind = kinds.get(id);
      if (kind !== 'user' && kind !== 'agent') continue;
      const entry = await this.#entry(id, kind);
      const had = members.get(id);
      if (had !== undefined && had.enc === entry.enc && had.sig === entry.sig) continue;
      members.set(id, entry);
      admitted.push(id);
    }
    const unchanged =
      admitted.length === 0 &&
      members.size === current.members.length &&
      (change.ownerId ?? me.id) === current.owner_id;
    if (unchanged) return admitted;
    await this.#publish(conversationId, {
      version: current.version + 1,
      ownerId: change.ownerId ?? me.id,
      members: [...members.values()],
    });
    return admitted;
  }

  async #publish(
    conversationId: string,
    r: { version: number; ownerId: string; members: readonly GroupRosterMember[] },
  ): Promise<void> {
    const me = this.#me();
    const roster: GroupRoster = {
      format: GROUP_ROSTER_FORMAT,
      conversation_id: conversationId,
      version: r.version,
      owner_id: r.ownerId,
      signed_by: me.id,
      members: [...r.members].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
    };
    const signed = await signGroupRoster(roster, me.signing, this.d.backend);
    const path = routePath(SERVICE_ROUTES.putGroupRoster, { id: conversationId });
    await this.d.rest.put(path, { roster: signed });
    this.forget(conversationId);
  }
}
