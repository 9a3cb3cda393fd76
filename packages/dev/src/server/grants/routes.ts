/**
 * Data grants (gap routes, see `MANIFEST_ROUTES`).
 *
 * | Method | Path | Auth | Body / query | `data` |
 * |---|---|---|---|---|
 * | POST | /agents/:id/grants | the agent | `{ conversation_id, scope, window_seconds, reason }` | 201: grant view (pending) |
 * | GET | /agents/:id/grants | the agent | | the agent's grants |
 * | GET | /agents/:id/grants/:grant_id | the agent | | one grant view |
 * | GET | /agents/:id/grants/:grant_id/data | the agent | | `{ grant_id, scope, expires_at, data }` |
 * | GET | /grants | the user | `?status=` | the user's grants |
 * | POST | /grants/:grant_id/decision | the user | `{ decision: 'granted' \| 'denied', window_seconds?, signed_decision }` | grant view |
 * | DELETE | /grants/:grant_id | the user | `{ signed_decision }` | grant view (revoked; idempotent) |
 *
 * Reading data: pending or denied → 403 GRANT_DENIED (`params.status`),
 * revoked → 403 GRANT_REVOKED, window over → 403 GRANT_EXPIRED. A decision
 * sends `grant.decided` and a revocation `grant.revoked` (`grant_id`, `scope`,
 * `user_id`, plus `agent_id`, `conversation_id`) to the agent, sealed by the
 * system sender, by WebSocket or webhook, with the user's `signed_decision`
 * relayed unchanged (checked here first: `decisions/signed-decision.ts`).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  GrantDecisionSchema,
  GrantRequestBodySchema,
  GrantStatusSchema,
  GrantWindowSecondsSchema,
  SignedDecisionSchema,
  type SignedDecision,
} from 'agent-messaging-sdk/protocol';
import { checkSignedDecision } from '../decisions/signed-decision.js';
import { MANIFEST_FRAMES, MANIFEST_ROUTES } from 'agent-messaging-sdk/protocol';
import { sendSystemEvent } from '../agents/system-events.js';
import { conversationView } from '../conversations/service.js';
import { memberConversation } from '../conversations/routes.js';
import { callersGroup } from '../groups/relay.js';
import type { ServerContext } from '../context.js';
import { fail, invalidField } from '../http/failure.js';
import { defineRoute, type Route } from '../http/router.js';
import { ok } from '../http/respond.js';
import { requireEstablished } from '../messages/relay.js';
import { grantsOf, grantStatus, grantView, type GrantRecord } from './state.js';

const DecisionSchema = z.strictObject({
  decision: GrantDecisionSchema,
  window_seconds: GrantWindowSecondsSchema.optional(),
  /** The user's signed statement of this decision (relayed to the agent, which verifies it). */
  signed_decision: SignedDecisionSchema,
});
const RevokeSchema = z.strictObject({ signed_decision: SignedDecisionSchema });

/** The fields a signed statement about `g` must carry. */
function expectedOf(g: GrantRecord, kind: string, windowSeconds: number) {
  return {
    kind,
    agent_id: g.agentId,
    grant_id: g.grantId,
    conversation_id: g.conversationId,
    scope: g.scope,
    window_seconds: windowSeconds,
  };
}

function agentGrant(ctx: ServerContext, agentId: string, grantId: string): GrantRecord {
  const g = grantsOf(ctx).get(grantId);
  if (g === undefined || g.agentId !== agentId) throw fail('NOT_FOUND', 'No such grant.');
  return g;
}

function userGrant(ctx: ServerContext, userId: string, grantId: string): GrantRecord {
  const g = grantsOf(ctx).get(grantId);
  if (g === undefined || g.userId !== userId) throw fail('NOT_FOUND', 'No such grant.');
  return g;
}

function invalidState(g: GrantRecord, nowMs: number) {
  const status = grantStatus(g, nowMs);
  return invalidField('grant_id', 'invalid_state', { status }, `The grant is ${status}.`);
}

/**
 * Sends a grant event to the agent. `grant.revoked` travels in the grant's
 * conversation (ordered with its messages); `grant.decided` in the `system`
 * conversation, so a handler of that conversation awaiting the decision
 * (`agent.grants.awaitDecision`) is not queued behind itself.
 */
function grantEvent(
  ctx: ServerContext,
  type: string,
  g: GrantRecord,
  extra: Record<string, unknown>,
  signed: SignedDecision,
) {
  const payload = {
    grant_id: g.grantId,
    scope: g.scope,
    user_id: g.userId,
    agent_id: g.agentId,
    conversation_id: g.conversationId,
    ...extra,
    // The user's own signed statement, relayed unchanged: the agent verifies it.
    signed_decision: signed,
  };
  const inConversation = type === MANIFEST_FRAMES.grantDecided ? undefined : g.conversationId;
  return sendSystemEvent(ctx, g.agentId, type, payload, inConversation);
}

/** The data of a grant's scope (cleartext the server holds; never message content). */
async function scopeData(ctx: ServerContext, g: GrantRecord): Promise<unknown> {
  if (g.scope === 'profile.read') {
    const user = await ctx.store.users.byId(g.userId);
    if (user === undefined) throw fail('USER_NOT_FOUND', 'The user no longer exists.');
    return { user_id: user.userId, display_name: user.displayName, device_locale: user.deviceLocale };
  }
  return (await ctx.store.conversations.listByUser(g.userId)).map(conversationView);
}

const request = defineRoute({
  method: MANIFEST_ROUTES.requestGrant.method,
  path: MANIFEST_ROUTES.requestGrant.path,
  auth: 'agent',
  body: GrantRequestBodySchema,
  async handler({ ctx, principal, body }) {
    if ((await callersGroup(ctx, principal, body.conversation_id)) !== undefined) {
      throw invalidField(
        'conversation_id',
        'group_conversation',
        {},
        'A data grant is asked of one user: use the one-to-one conversation with that user, not a group.',
      );
    }
    const c = await memberConversation(ctx, principal, body.conversation_id);
    requireEstablished(c);
    const g: GrantRecord = {
      grantId: randomUUID(),
      agentId: principal.agentId,
      userId: c.userId,
      conversationId: c.conversationId,
      scope: body.scope,
      reason: body.reason,
      windowSeconds: body.window_seconds,
      status: 'pending',
      requestedAtMs: ctx.clock.now(),
      decidedAtMs: undefined,
      expiresAtMs: undefined,
      revokedAtMs: undefined,
    };
    grantsOf(ctx).set(g.grantId, g);
    // The dev console's user feed: the asked user's page reads the agent's requests again.
    ctx.consoleFeed.tellUser(g.userId, 'requests_changed', g.agentId, g.requestedAtMs);
    return ok(grantView(g, ctx.clock.now()), 201);
  },
});

const agentList = defineRoute({
  method: MANIFEST_ROUTES.agentGrants.method,
  path: MANIFEST_ROUTES.agentGrants.path,
  auth: 'agent',
  handler({ ctx, principal }) {
    const now = ctx.clock.now();
    const mine = [...grantsOf(ctx).values()].filter((g) => g.agentId === principal.agentId);
    return ok(mine.map((g) => grantView(g, now)));
  },
});

const agentOne = defineRoute({
  method: MANIFEST_ROUTES.agentGrant.method,
  path: MANIFEST_ROUTES.agentGrant.path,
  auth: 'agent',
  handler({ ctx, principal, params }) {
    return ok(grantView(agentGrant(ctx, principal.agentId, params['grant_id']!), ctx.clock.now()));
  },
});

const readData = defineRoute({
  method: MANIFEST_ROUTES.readGrant.method,
  path: MANIFEST_ROUTES.readGrant.path,
  auth: 'agent',
  async handler({ ctx, principal, params }) {
    const g = agentGrant(ctx, principal.agentId, params['grant_id']!);
    const status = grantStatus(g, ctx.clock.now());
    const about = { grant_id: g.grantId, scope: g.scope, status };
    if (status === 'pending' || status === 'denied') {
      throw fail('GRANT_DENIED', `The grant is ${status}: it was not granted.`, about);
    }
    if (status === 'revoked') throw fail('GRANT_REVOKED', 'The user revoked this grant.', about);
    if (status === 'expired') throw fail('GRANT_EXPIRED', "The grant's time window has ended.", about);
    requireEstablished(await memberConversation(ctx, principal, g.conversationId));
    return ok({
      grant_id: g.grantId,
      scope: g.scope,
      expires_at: new Date(g.expiresAtMs!).toISOString(),
      data: await scopeData(ctx, g),
    });
  },
});

const userList = defineRoute({
  method: MANIFEST_ROUTES.userGrants.method,
  path: MANIFEST_ROUTES.userGrants.path,
  auth: 'user',
  handler({ ctx, principal, req }) {
    const wanted = req.query.get('status');
    if (wanted !== null && !GrantStatusSchema.safeParse(wanted).success) {
      throw invalidField('status', 'invalid_value', { allowed: GrantStatusSchema.options });
    }
    const now = ctx.clock.now();
    const views = [...grantsOf(ctx).values()]
      .filter((g) => g.userId === principal.userId)
      .map((g) => grantView(g, now))
      .filter((v) => wanted === null || v.status === wanted);
    return ok(views);
  },
});

const decide = defineRoute({
  method: MANIFEST_ROUTES.decideGrant.method,
  path: MANIFEST_ROUTES.decideGrant.path,
  auth: 'user',
  body: DecisionSchema,
  async handler({ ctx, principal, params, body }) {
    const g = userGrant(ctx, principal.userId, params['grant_id']!);
    const now = ctx.clock.now();
    if (g.status !== 'pending') throw invalidState(g, now);
    if (body.window_seconds !== undefined && body.window_seconds > g.windowSeconds) {
      throw invalidField('window_seconds', 'too_big', { max: g.windowSeconds });
    }
    const window = body.decision === 'granted' ? (body.window_seconds ?? g.windowSeconds) : g.windowSeconds;
    const signed = await checkSignedDecision(
      ctx,
      principal.userId,
      body.signed_decision,
      expectedOf(g, `grant.${body.decision}`, window),
    );
    g.status = body.decision;
    g.decidedAtMs = now;
    if (body.decision === 'granted') {
      g.windowSeconds = body.window_seconds ?? g.windowSeconds;
      g.expiresAtMs = now + g.windowSeconds * 1000;
    }
    await grantEvent(
      ctx,
      MANIFEST_FRAMES.grantDecided,
      g,
      {
        decision: body.decision,
        expires_at: g.expiresAtMs === undefined ? null : new Date(g.expiresAtMs).toISOString(),
      },
      signed,
    );
    return ok(grantView(g, now));
  },
});

const revoke = defineRoute({
  method: MANIFEST_ROUTES.revokeGrant.method,
  path: MANIFEST_ROUTES.revokeGrant.path,
  auth: 'user',
  body: RevokeSchema,
  async handler({ ctx, principal, params, body }) {
    const g = userGrant(ctx, principal.userId, params['grant_id']!);
    const now = ctx.clock.now();
    if (g.status === 'revoked') return ok(grantView(g, now));
    if (g.status !== 'granted') throw invalidState(g, now);
    const signed = await checkSignedDecision(
      ctx,
      principal.userId,
      body.signed_decision,
      expectedOf(g, 'grant.revoked', g.windowSeconds),
    );
    g.status = 'revoked';
    g.revokedAtMs = now;
    await grantEvent(ctx, 'grant.revoked', g, {}, signed);
    return ok(grantView(g, now));
  },
});

/** Data grant routes. */
export const grantRoutes: readonly Route[] = [
  request,
  agentList,
  agentOne,
  readData,
  userList,
  decide,
  revoke,
];
