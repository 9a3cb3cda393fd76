/**
 * Groups: conversations with several humans and agents.
 *
 * | Action | Who | Effect | Events (sealed by `system`, WebSocket only) |
 * |---|---|---|---|
 * | create | a user with a key backup, naming agents they own or have an established relation with | group with key version 1; the user is its owner | `group.updated` (`created`) to every member |
 * | invite | any member | a one-time code, valid 7 days | none |
 * | join | a user (key backup) or an agent (registered keys) with a code | member added, code used up, key version + 1 | `group.updated` (`joined`), `system.group_key_rotated` (`membership`) |
 * | leave | any member | member gone (the owner's role passes to the longest-standing human; a group without humans is deleted), key version + 1 | `group.updated` (`left`) to the leaver and the rest, `system.group_key_rotated` to the rest |
 * | remove | the owner | member gone, key version + 1 | `group.updated` (`removed`) to the removed and the rest, `system.group_key_rotated` to the rest |
 * | rotate | any member, with `based_on_version` | key version + 1 | `system.group_key_rotated` (`requested`) |
 * | publish roster | the owner | the signed roster served in the group detail (a higher version, signed by the caller, listing current members only) | none |
 *
 * Rotations: a request whose `based_on_version` is not the current version
 * is 409 GROUP_KEY_VERSION_CONFLICT (`params.current_version`); at most 6
 * rotations per hour per conversation, membership rotations included, else
 * 429 GROUP_KEY_ROTATION_LIMIT with Retry-After. A membership change always
 * starts a new version (it is never refused; it counts toward the window).
 *
 * @module
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { GROUP_LIMITS, inviteCodeFromBytes, type GroupChange } from 'agent-messaging-sdk/protocol';
import { LIMITS } from 'agent-messaging-sdk/protocol';
import {
  defaultSyncBackend,
  fromBase64,
  groupRosterBytes,
  type SignedGroupRoster,
} from 'agent-messaging-sdk/protocol';
import { governanceFailure } from '../agents/authenticate-agent.js';
import { currentKey } from '../agents/records.js';
import type { ServerContext } from '../context.js';
import { fail } from '../http/failure.js';
import type { AnyPrincipal } from '../http/types.js';
import { rateLimitFailure, type RateLimitRule } from '../limits/rate-limiter.js';
import type { GroupMember, GroupRecord, InviteRecord } from '../store/group-types.js';
import { sendGroupEvent, type GroupEventRecipient } from './events.js';
import { memberGone } from './member-gone.js';

/** The rotation limit: 6 per hour per conversation. */
export const GROUP_KEY_ROTATION_RULE: RateLimitRule = Object.freeze({
  limit: LIMITS.GROUP_KEY_ROTATIONS_PER_WINDOW,
  windowMs: LIMITS.GROUP_KEY_ROTATION_WINDOW_MS,
  code: 'GROUP_KEY_ROTATION_LIMIT',
  what: 'group key rotations',
});

/** The caller's id. */
export const principalId = (p: AnyPrincipal): string => (p.kind === 'user' ? p.userId : p.agentId);

const notFound = () => fail('GROUP_NOT_FOUND', 'No such group.');

/**
 * The group `id` if the caller is a member.
 *
 * @throws {@link ServerFailure} GROUP_NOT_FOUND (unknown, or the caller is not a member).
 */
export async function memberGroup(
  ctx: ServerContext,
  principal: AnyPrincipal,
  id: string,
): Promise<GroupRecord> {
  const g = await ctx.store.groups.get(id);
  if (g === undefined || !g.members.some((m) => m.id === principalId(principal))) throw notFound();
  return g;
}

/** Rotation times still inside the window at `nowMs`. */
function window(g: GroupRecord, nowMs: number): number[] {
  return g.rotationsMs.filter((t) => t > nowMs - GROUP_KEY_ROTATION_RULE.windowMs);
}

/** `g` with a new key version (a membership change: never refused, counted). */
function bumped(g: GroupRecord, members: readonly GroupMember[], nowMs: number): GroupRecord {
  return {
    ...g,
    members,
    keyVersion: g.keyVersion + 1,
    rotationsMs: [...window(g, nowMs), nowMs],
    updatedAtMs: nowMs,
  };
}

const recipients = (members: readonly GroupMember[]): GroupEventRecipient[] =>
  members.map((m) => ({ id: m.id, kind: m.kind }));

async function announce(
  ctx: ServerContext,
  g: GroupRecord,
  change: GroupChange,
  memberId: string,
  extra: readonly GroupEventRecipient[] = [],
): Promise<void> {
  const payload = {
    conversation_id: g.conversationId,
    change,
    member_id: memberId,
    key_version: g.keyVersion,
    member_ids: g.members.map((m) => m.id),
  };
  await sendGroupEvent(ctx, [...recipients(g.members), ...extra], 'group.updated', payload, g.conversationId);
}

async function announceRotation(
  ctx: ServerContext,
  g: GroupRecord,
  reason: 'membership' | 'requested',
  rotatedBy: string,
): Promise<void> {
  const payload = {
    conversation_id: g.conversationId,
    key_version: g.keyVersion,
    previous_version: g.keyVersion - 1,
    reason,
    rotated_by: rotatedBy,
  };
  await sendGroupEvent(ctx, recipients(g.members), 'system.group_key_rotated', payload, g.conversationId);
}

async function requireUserKeys(ctx: ServerContext, userId: string): Promise<void> {
  if ((await ctx.store.keyBackups.get(userId)) === undefined) {
    throw fail('KEY_BACKUP_NOT_FOUND', 'Upload a key backup (POST /keys/backup) before joining a group.');
  }
}

/** An agent the user may add: owned by them or in an established relation, not governed, with keys. */
async function addableAgent(ctx: ServerContext, userId: string, agentId: string): Promise<void> {
  const agent = await ctx.store.agents.get(agentId);
  if (agent === undefined) throw fail('AGENT_NOT_FOUND', 'No such agent.', { agent_id: agentId });
  const related =
    agent.ownerId === userId ||
    (await ctx.store.conversations.listByUser(userId)).some(
      (c) => c.agentId === agentId && c.state === 'established',
    );
  // Same answer as an unknown id: a user cannot probe for agents they have no relation with.
  if (!related) throw fail('AGENT_NOT_FOUND', 'No such agent.', { agent_id: agentId });
  const governed = governanceFailure(agent);
  if (governed !== undefined) throw governed;
  if (currentKey(agent, ctx.clock.now()) === undefined) {
    throw fail('AGENT_NOT_REGISTERED', 'The agent has not registered its public keys yet.', {
      agent_id: agentId,
    });
  }
}

/**
 * A user creates a group with agents.
 *
 * @throws {@link ServerFailure} KEY_BACKUP_NOT_FOUND, AGENT_NOT_FOUND, AGENT_SUSPENDED / AGENT_BANNED,
 * AGENT_NOT_REGISTERED.
 */
export async function createGroup(
  ctx: ServerContext,
  userId: string,
  name: string,
  agentIds: readonly string[],
): Promise<GroupRecord> {
  await requireUserKeys(ctx, userId);
  const unique = [...new Set(agentIds)];
  for (const id of unique) await addableAgent(ctx, userId, id);
  const now = ctx.clock.now();
  const members: GroupMember[] = [
    { id: userId, kind: 'user', role: 'owner', joinedAtMs: now },
    ...unique.map((id): GroupMember => ({ id, kind: 'agent', role: 'member', joinedAtMs: now })),
  ];
  const group = await ctx.store.groups.create({
    conversationId: randomUUID(),
    name,
    ownerId: userId,
    members,
    keyVersion: 1,
    rotationsMs: [],
    createdAtMs: now,
    updatedAtMs: now,
  });
  await announce(ctx, group, 'created', userId);
  return group;
}

/** A member creates a one-time invite code. */
export async function createInvite(ctx: ServerContext, g: GroupRecord, by: string): Promise<InviteRecord> {
  const now = ctx.clock.now();
  const invite: InviteRecord = {
    code: inviteCodeFromBytes(randomBytes(8)),
    conversationId: g.conversationId,
    createdBy: by,
    createdAtMs: now,
    expiresAtMs: now + GROUP_LIMITS.inviteTtlMs,
  };
  await ctx.store.groups.putInvite(invite);
  return invite;
}

/**
 * Joins the group of `code` (used up unless the caller already is a member).
 *
 * @throws {@link ServerFailure} INVITE_CODE_NOT_FOUND (unknown, used or expired), GROUP_NOT_FOUND
 * (the group was deleted), KEY_BACKUP_NOT_FOUND / AGENT_NOT_REGISTERED, VALIDATION_ERROR
 * (`reason: group_full`).
 */
export async function joinGroup(
  ctx: ServerContext,
  principal: AnyPrincipal,
  code: string,
): Promise<{ readonly group: GroupRecord; readonly joined: boolean }> {
  const id = principalId(principal);
  if (principal.kind === 'user') await requireUserKeys(ctx, id);
  else {
    const agent = await ctx.store.agents.get(id);
    if (agent === undefined || currentKey(agent, ctx.clock.now()) === undefined) {
      throw fail('AGENT_NOT_REGISTERED', 'Register the agent keys before joining a group.');
    }
  }
  const now = ctx.clock.now();
  let joined = false;
  const r = await ctx.store.groups.redeemInvite<'full'>(code, now, (g) => {
    if (g.members.some((m) => m.id === id)) return g;
    if (g.members.length >= GROUP_LIMITS.maxMembers) return { refused: 'full' };
    joined = true;
    return bumped(g, [...g.members, { id, kind: principal.kind, role: 'member', joinedAtMs: now }], now);
  });
  if (r === 'no_invite') throw fail('INVITE_CODE_NOT_FOUND', 'This invite code does not exist or was used.');
  if (r === 'no_group') throw notFound();
  if ('refused' in r) {
    throw fail('VALIDATION_ERROR', `A group has at most ${GROUP_LIMITS.maxMembers} members.`, {
      reason: 'group_full',
      max: GROUP_LIMITS.maxMembers,
    });
  }
  if (joined) {
    await announce(ctx, r, 'joined', id);
    await announceRotation(ctx, r, 'membership', id);
  }
  return { group: r, joined };
}

/**
 * Removes `memberId` (leaving when it is the caller). The owner's role
 * passes to the longest-standing human; a group left without humans is deleted.
 *
 * @throws {@link ServerFailure} GROUP_NOT_FOUND, NOT_FOUND (not a member).
 */
export async function removeMember(
  ctx: ServerContext,
  g: GroupRecord,
  memberId: string,
  change: 'left' | 'removed',
): Promise<GroupRecord | null> {
  const now = ctx.clock.now();
  const gone = g.members.find((m) => m.id === memberId);
  if (gone === undefined) throw fail('NOT_FOUND', 'Not a member of this group.');
  const r = await ctx.store.groups.update<'absent'>(g.conversationId, (current) => {
    if (!current.members.some((m) => m.id === memberId)) return { refused: 'absent' };
    const rest = current.members.filter((m) => m.id !== memberId);
    // The owner named by the signed roster, when the leaving owner handed the group over in it.
    const named = rest.find((m) => m.id === current.roster?.ownerId && m.kind === 'user');
    const heir = named ?? rest.find((m) => m.kind === 'user');
    if (heir === undefined) return null;
    const ownerId = current.ownerId === memberId ? heir.id : current.ownerId;
    const members = rest.map((m) => ({
      ...m,
      role: m.id === ownerId ? ('owner' as const) : ('member' as const),
    }));
    return { ...bumped(current, members, now), ownerId };
  });
  if (r === undefined) throw notFound();
  if (r === null || !('refused' in r)) await memberGone(ctx, g.conversationId, memberId);
  const leaver = [{ id: gone.id, kind: gone.kind }];
  if (r === null) {
    await announce(ctx, { ...g, members: [] }, change, memberId, leaver);
    return null;
  }
  if ('refused' in r) throw fail('NOT_FOUND', 'Not a member of this group.');
  await announce(ctx, r, change, memberId, leaver);
  await announceRotation(ctx, r, 'membership', memberId);
  return r;
}

/**
 * Starts a new key version on request.
 *
 * @throws {@link ServerFailure} GROUP_NOT_FOUND, GROUP_KEY_VERSION_CONFLICT (409,
 * `params.current_version`), GROUP_KEY_ROTATION_LIMIT (429, Retry-After).
 */
export async function rotateGroupKey(
  ctx: ServerContext,
  g: GroupRecord,
  by: string,
  basedOnVersion: number,
): Promise<GroupRecord> {
  const now = ctx.clock.now();
  type Refusal = { conflict: number } | { retryAfterMs: number };
  const r = await ctx.store.groups.update<Refusal>(g.conversationId, (current) => {
    if (current.keyVersion !== basedOnVersion) return { refused: { conflict: current.keyVersion } };
    const inWindow = window(current, now);
    if (inWindow.length >= GROUP_KEY_ROTATION_RULE.limit) {
      return {
        refused: { retryAfterMs: Math.max(1, inWindow[0]! + GROUP_KEY_ROTATION_RULE.windowMs - now) },
      };
    }
    return bumped(current, current.members, now);
  });
  if (r === undefined || r === null) throw notFound();
  if ('refused' in r) {
    if ('conflict' in r.refused) {
      throw fail('GROUP_KEY_VERSION_CONFLICT', 'The group key changed since you read it; read it again.', {
        current_version: r.refused.conflict,
        based_on_version: basedOnVersion,
      });
    }
    throw rateLimitFailure(GROUP_KEY_ROTATION_RULE, r.refused.retryAfterMs);
  }
  await announceRotation(ctx, r, 'requested', by);
  return r;
}

/**
 * The owner publishes a signed roster. The server checks what it can without
 * trusting it for anything: the group, a higher version, the caller as
 * signer, the caller's published signing key as `signer_key`, a valid
 * signature, and members that are current members. Members' clients check
 * it again against the last version they accepted.
 *
 * @throws {@link ServerFailure} FORBIDDEN (`not_group_owner`), VALIDATION_ERROR (`reason`:
 * `wrong_group`, `stale_version`, `signer`, `signature`, `not_a_member`).
 */
export async function publishRoster(
  ctx: ServerContext,
  g: GroupRecord,
  userId: string,
  signed: SignedGroupRoster,
): Promise<GroupRecord> {
  if (g.ownerId !== userId) {
    throw fail('FORBIDDEN', 'Only the group owner publishes its roster.', { reason: 'not_group_owner' });
  }
  const bad = (reason: string, message: string) =>
    fail('VALIDATION_ERROR', message, { field: 'roster', reason });
  const r = signed.roster;
  if (r.conversation_id !== g.conversationId) throw bad('wrong_group', 'The roster names another group.');
  if (r.signed_by !== userId) throw bad('signer', 'The roster must be signed by the caller.');
  const backup = await ctx.store.keyBackups.get(userId);
  const published = (backup?.record as { signing_public_key?: unknown } | undefined)?.signing_public_key;
  if (typeof published !== 'string' || published !== signed.signer_key) {
    throw bad('signer', "The roster's signer key is not the caller's published signing key.");
  }
  const key = fromBase64(signed.signer_key)!;
  if (!defaultSyncBackend().sync.ed25519Verify(key, groupRosterBytes(r), fromBase64(signed.signature)!)) {
    throw bad('signature', 'The roster signature does not verify.');
  }
  const result = await ctx.store.groups.update<'stale' | 'not_a_member'>(g.conversationId, (current) => {
    if (r.version <= (current.roster?.version ?? 0)) return { refused: 'stale' };
    const ids = new Set(current.members.map((m) => m.id));
    if (r.members.some((m) => !ids.has(m.id))) return { refused: 'not_a_member' };
    const roster = { version: r.version, ownerId: r.owner_id, memberIds: r.members.map((m) => m.id), signed };
    return { ...current, roster };
  });
  if (result === undefined || result === null) throw notFound();
  if ('refused' in result) {
    throw result.refused === 'stale'
      ? bad('stale_version', 'A roster of this version or a higher one was published already.')
      : bad('not_a_member', 'The roster lists someone who is not a member of the group.');
  }
  return result;
}
