/**
 * Group routes (paths and methods from `GROUP_ROUTES`, `service-names.ts`).
 *
 * | Route | Auth | Body | `data` |
 * |---|---|---|---|
 * | POST /groups | user | `{ name, agent_ids? }` | 201: group detail |
 * | GET /groups | user or agent | | the caller's groups (views) |
 * | GET /groups/:id | member | | group detail (members with public keys) |
 * | POST /groups/:id/invites | member | `{}` | 201: `{ code, conversation_id, expires_at }` |
 * | POST /groups/join | user or agent | `{ code }` | 200: group detail (`joined: false` when already a member) |
 * | POST /groups/:id/leave | member | `{}` | `{ conversation_id, left: true, deleted }` |
 * | DELETE /groups/:id/members/:member_id | the owner | | group detail |
 * | POST /groups/:id/key/rotate | member | `{ based_on_version }` | `{ conversation_id, key_version }` |
 * | PUT /groups/:id/roster | the owner | `{ roster }` (signed) | `{ conversation_id, roster_version }` |
 *
 * A non-member gets GROUP_NOT_FOUND for an existing group too, so ids cannot be probed.
 *
 * @module
 */
import { z } from 'zod';
import {
  CreateGroupRequestSchema,
  JoinGroupRequestSchema,
  PutGroupRosterRequestSchema,
  RotateGroupKeyRequestSchema,
} from 'agent-messaging-sdk/protocol';
import { GROUP_ROUTES } from 'agent-messaging-sdk/protocol';
import { fail } from '../http/failure.js';
import { defineRoute, type Route } from '../http/router.js';
import { ok } from '../http/respond.js';
import {
  createGroup,
  createInvite,
  joinGroup,
  memberGroup,
  principalId,
  publishRoster,
  removeMember,
  rotateGroupKey,
} from './service.js';
import { groupDetail, groupView, inviteView } from './views.js';

const EmptyBodySchema = z.strictObject({});

const create = defineRoute({
  method: GROUP_ROUTES.createGroup.method,
  path: GROUP_ROUTES.createGroup.path,
  auth: 'user',
  body: CreateGroupRequestSchema,
  async handler({ ctx, principal, body }) {
    const g = await createGroup(ctx, principal.userId, body.name, body.agent_ids);
    return ok(await groupDetail(ctx, principal, g), 201);
  },
});

const list = defineRoute({
  method: GROUP_ROUTES.listGroups.method,
  path: GROUP_ROUTES.listGroups.path,
  auth: 'user_or_agent',
  async handler({ ctx, principal }) {
    return ok((await ctx.store.groups.listByMember(principalId(principal))).map(groupView));
  },
});

const read = defineRoute({
  method: GROUP_ROUTES.getGroup.method,
  path: GROUP_ROUTES.getGroup.path,
  auth: 'user_or_agent',
  async handler({ ctx, principal, params }) {
    const g = await memberGroup(ctx, principal, params['id']!);
    return ok(await groupDetail(ctx, principal, g));
  },
});

const invite = defineRoute({
  method: GROUP_ROUTES.createInvite.method,
  path: GROUP_ROUTES.createInvite.path,
  auth: 'user_or_agent',
  body: EmptyBodySchema,
  async handler({ ctx, principal, params }) {
    const g = await memberGroup(ctx, principal, params['id']!);
    return ok(inviteView(await createInvite(ctx, g, principalId(principal))), 201);
  },
});

const join = defineRoute({
  method: GROUP_ROUTES.joinGroup.method,
  path: GROUP_ROUTES.joinGroup.path,
  auth: 'user_or_agent',
  body: JoinGroupRequestSchema,
  async handler({ ctx, principal, body }) {
    const { group, joined } = await joinGroup(ctx, principal, body.code);
    return ok({ ...(await groupDetail(ctx, principal, group)), joined });
  },
});

const leave = defineRoute({
  method: GROUP_ROUTES.leaveGroup.method,
  path: GROUP_ROUTES.leaveGroup.path,
  auth: 'user_or_agent',
  body: EmptyBodySchema,
  async handler({ ctx, principal, params }) {
    const g = await memberGroup(ctx, principal, params['id']!);
    const after = await removeMember(ctx, g, principalId(principal), 'left');
    return ok({ conversation_id: g.conversationId, left: true, deleted: after === null });
  },
});

const remove = defineRoute({
  method: GROUP_ROUTES.removeMember.method,
  path: GROUP_ROUTES.removeMember.path,
  auth: 'user',
  async handler({ ctx, principal, params }) {
    const g = await memberGroup(ctx, principal, params['id']!);
    if (g.ownerId !== principal.userId) {
      throw fail('FORBIDDEN', 'Only the group owner removes members.', { reason: 'not_group_owner' });
    }
    const memberId = params['member_id']!;
    if (memberId === principal.userId) {
      throw fail('VALIDATION_ERROR', 'Leave the group instead of removing yourself.', {
        field: 'member_id',
        reason: 'self',
      });
    }
    const after = await removeMember(ctx, g, memberId, 'removed');
    return ok(
      after === null
        ? { conversation_id: g.conversationId, deleted: true }
        : await groupDetail(ctx, principal, after),
    );
  },
});

const rotate = defineRoute({
  method: GROUP_ROUTES.rotateGroupKey.method,
  path: GROUP_ROUTES.rotateGroupKey.path,
  auth: 'user_or_agent',
  body: RotateGroupKeyRequestSchema,
  async handler({ ctx, principal, params, body }) {
    const g = await memberGroup(ctx, principal, params['id']!);
    const next = await rotateGroupKey(ctx, g, principalId(principal), body.based_on_version);
    return ok({ conversation_id: next.conversationId, key_version: next.keyVersion });
  },
});

const roster = defineRoute({
  method: GROUP_ROUTES.putGroupRoster.method,
  path: GROUP_ROUTES.putGroupRoster.path,
  auth: 'user',
  body: PutGroupRosterRequestSchema,
  async handler({ ctx, principal, params, body }) {
    const g = await memberGroup(ctx, principal, params['id']!);
    const after = await publishRoster(ctx, g, principal.userId, body.roster);
    return ok({ conversation_id: after.conversationId, roster_version: after.roster?.version ?? 0 });
  },
});

/** Group routes. */
export const groupRoutes: readonly Route[] = [
  create,
  list,
  join,
  read,
  invite,
  leave,
  remove,
  rotate,
  roster,
];
