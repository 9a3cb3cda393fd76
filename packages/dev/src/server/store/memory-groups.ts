/**
 * In-memory {@link GroupStore}. Each method runs to completion without
 * awaiting, so each is atomic.
 *
 * @module
 */
import type { GroupRecord, GroupStore, InviteRecord } from './group-types.js';

/** Creates an empty in-memory {@link GroupStore}. */
export function createMemoryGroupStore(): GroupStore {
  const groups = new Map<string, GroupRecord>();
  const invites = new Map<string, InviteRecord>();
  return {
    async create(group) {
      groups.set(group.conversationId, group);
      return group;
    },
    async get(id) {
      return groups.get(id);
    },
    async listByMember(memberId) {
      return [...groups.values()].filter((g) => g.members.some((m) => m.id === memberId));
    },
    async update(id, change) {
      const current = groups.get(id);
      if (current === undefined) return undefined;
      const next = change(current);
      if (next === null) groups.delete(id);
      else if (!('refused' in next)) groups.set(id, next);
      return next;
    },
    async putInvite(invite) {
      invites.set(invite.code, invite);
    },
    async redeemInvite(code, nowMs, change) {
      const invite = invites.get(code);
      if (invite === undefined || invite.expiresAtMs <= nowMs) {
        invites.delete(code);
        return 'no_invite';
      }
      const group = groups.get(invite.conversationId);
      if (group === undefined) {
        invites.delete(code);
        return 'no_group';
      }
      const next = change(group, invite);
      if (!('refused' in next) && next !== group) {
        groups.set(group.conversationId, next);
        invites.delete(code);
      }
      return next;
    },
  };
}
