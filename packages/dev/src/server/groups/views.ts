/**
 * Wire views of groups.
 *
 * - group view: `{ conversation_id, kind: 'group', name, owner_id, key_version, created_at, updated_at, members }`,
 *   each member `{ id, kind, role, joined_at }`;
 * - group detail (`GET /groups/:id`, and `GET /conversations/:id` of a group): the same,
 *   each member also with its public keys as `GET /keys/:principal_id` gives them
 *   (`public_key: null` when it has none), and `roster`: the owner-signed roster last published
 *   (null before the first).
 *
 * @module
 */
import { lookupKeys } from '../agents/key-lookup.js';
import type { ServerContext } from '../context.js';
import type { AnyPrincipal } from '../http/types.js';
import type { GroupMember, GroupRecord, InviteRecord } from '../store/group-types.js';

const iso = (ms: number): string => new Date(ms).toISOString();

function memberView(m: GroupMember) {
  return { id: m.id, kind: m.kind, role: m.role, joined_at: iso(m.joinedAtMs) };
}

/** Wire view of a group. */
export function groupView(g: GroupRecord) {
  return {
    conversation_id: g.conversationId,
    kind: 'group' as const,
    name: g.name,
    owner_id: g.ownerId,
    key_version: g.keyVersion,
    created_at: iso(g.createdAtMs),
    updated_at: iso(g.updatedAtMs),
    members: g.members.map(memberView),
  };
}

/** Wire view of a group with every member's public keys, as `principal` may see them. */
export async function groupDetail(ctx: ServerContext, principal: AnyPrincipal, g: GroupRecord) {
  const members = [];
  for (const m of g.members) {
    try {
      members.push({ ...(await lookupKeys(ctx, principal, m.id)), ...memberView(m) });
    } catch {
      members.push({ ...memberView(m), public_key: null });
    }
  }
  return { ...groupView(g), members, roster: g.roster?.signed ?? null };
}

/** Wire view of an invite. The code is a secret of the group: shown to the member who asked only. */
export function inviteView(i: InviteRecord) {
  return { code: i.code, conversation_id: i.conversationId, expires_at: iso(i.expiresAtMs) };
}
