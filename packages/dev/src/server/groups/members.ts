/**
 * Who is in a conversation, whatever its kind: a group's members, or the
 * user and agent of a one-to-one conversation. Other features read this
 * (for instance an artifact tool refused with `tool_not_supported_in_group`
 * when a conversation has more than one human member).
 *
 * @module
 */
import type { ServerContext } from '../context.js';
import type { GroupRecord } from '../store/group-types.js';

/** The group of `conversationId`, or undefined for a one-to-one (or unknown) conversation. */
export function groupOf(ctx: ServerContext, conversationId: string): Promise<GroupRecord | undefined> {
  return ctx.store.groups.get(conversationId);
}

/**
 * The ids of the human members of a conversation: every user member of a
 * group, the user of a one-to-one conversation, none for an unknown id.
 *
 * @example
 * ```ts
 * if ((await humanMembers(ctx, conversationId)).length > 1) deny('tool_not_supported_in_group');
 * ```
 */
export async function humanMembers(ctx: ServerContext, conversationId: string): Promise<string[]> {
  const group = await groupOf(ctx, conversationId);
  if (group !== undefined) return group.members.filter((m) => m.kind === 'user').map((m) => m.id);
  const c = await ctx.store.conversations.get(conversationId);
  return c === undefined ? [] : [c.userId];
}

/** The ids of every member of a conversation (humans and agents), none for an unknown id. */
export async function conversationMemberIds(ctx: ServerContext, conversationId: string): Promise<string[]> {
  const group = await groupOf(ctx, conversationId);
  if (group !== undefined) return group.members.map((m) => m.id);
  const c = await ctx.store.conversations.get(conversationId);
  return c === undefined ? [] : [c.userId, c.agentId];
}

/** True when `a` and `b` are both members of one group. */
export async function shareGroup(ctx: ServerContext, a: string, b: string): Promise<boolean> {
  const groups = await ctx.store.groups.listByMember(a);
  return groups.some((g) => g.members.some((m) => m.id === b));
}
