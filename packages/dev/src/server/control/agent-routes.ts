/**
 * Part-2 control routes (dev mode only, no authentication):
 *
 * | Method | Path | Body | data |
 * |---|---|---|---|
 * | POST | /_control/agents | `{ owner_id, name? }` | 201 `{ agent_id, token }` |
 * | GET | /_control/agents/:id | | the agent view |
 * | PUT | /_control/agents/:id/governance | `{ level: 'none'｜'L1'｜'L2'｜'L3', reason? }` | the governance view |
 * | PUT | /_control/agents/:id/webhook | `{ url, secret? }` | `{ agent_id, url, secret }` |
 * | DELETE | /_control/agents/:id/webhook | | `{ agent_id, url: null }` |
 * | POST | /_control/agents/:id/events | `{ type, payload?, conversation_id? }` | `{ outcome }` |
 * | POST | /_control/conversations/:id/suspend | | the conversation view |
 * | POST | /_control/conversations/:id/restore | | the conversation view |
 * | POST | /_control/users/access-token | `{ user_id, device_id?, device_name? }` | `{ user_id, device_id, access_token, refresh_token }` |
 *
 * @module
 */
import { z } from 'zod';
import { isConfigurationError } from 'agent-messaging-sdk/protocol';
import { IdentifierSchema } from 'agent-messaging-sdk/protocol';
import { GOVERNANCE_REASON_MAX_CHARS, GovernanceLevelSchema, governanceView } from '../agents/governance.js';
import { AGENT_NAME_MAX_CHARS } from '../agents/routes.js';
import { WebhookSecretSchema, WebhookUrlSchema } from '../agents/webhook.js';
import { deviceFields } from '../auth/schemas.js';
import { fail } from '../http/failure.js';
import { defineRoute, type Route } from '../http/router.js';
import { ok } from '../http/respond.js';
import type { ControlApi } from './control-api.js';

async function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isConfigurationError(err))
      throw fail('NOT_FOUND', err.message, { reason: 'control_refused', option: err.option });
    throw err;
  }
}

function agentRoutes(control: ControlApi): Route[] {
  const create = defineRoute({
    method: 'POST',
    path: '/_control/agents',
    auth: 'none',
    body: z.strictObject({
      owner_id: IdentifierSchema,
      name: z.string().min(1).max(AGENT_NAME_MAX_CHARS).optional(),
    }),
    async handler({ body }) {
      const a = await guard(() =>
        control.createAgent({
          ownerId: body.owner_id,
          ...(body.name === undefined ? {} : { name: body.name }),
        }),
      );
      return ok({ agent_id: a.agentId, token: a.token }, 201);
    },
  });
  const read = defineRoute({
    method: 'GET',
    path: '/_control/agents/:id',
    auth: 'none',
    async handler({ params }) {
      const view = await control.agent(params['id']!);
      if (view === undefined) throw fail('AGENT_NOT_FOUND', 'No such agent.');
      return ok(view);
    },
  });
  const governance = defineRoute({
    method: 'PUT',
    path: '/_control/agents/:id/governance',
    auth: 'none',
    body: z.strictObject({
      level: GovernanceLevelSchema,
      reason: z.string().max(GOVERNANCE_REASON_MAX_CHARS).nullable().optional(),
    }),
    async handler({ ctx, params, body }) {
      await guard(() => control.setGovernance(params['id']!, body.level, body.reason ?? null));
      return ok(governanceView((await ctx.store.agents.get(params['id']!))!));
    },
  });
  return [create, read, governance];
}

function webhookAndEventRoutes(control: ControlApi): Route[] {
  const setHook = defineRoute({
    method: 'PUT',
    path: '/_control/agents/:id/webhook',
    auth: 'none',
    body: z.strictObject({ url: WebhookUrlSchema, secret: WebhookSecretSchema.optional() }),
    async handler({ params, body }) {
      const hook = await guard(() =>
        control.setWebhook(params['id']!, {
          url: body.url,
          ...(body.secret === undefined ? {} : { secret: body.secret }),
        }),
      );
      return ok({ agent_id: params['id'], url: hook.url, secret: hook.secret });
    },
  });
  const removeHook = defineRoute({
    method: 'DELETE',
    path: '/_control/agents/:id/webhook',
    auth: 'none',
    async handler({ params }) {
      await guard(() => control.removeWebhook(params['id']!));
      return ok({ agent_id: params['id'], url: null });
    },
  });
  const event = defineRoute({
    method: 'POST',
    path: '/_control/agents/:id/events',
    auth: 'none',
    body: z.strictObject({
      type: z.string().min(1).max(100),
      payload: z.record(z.string(), z.unknown()).optional(),
      conversation_id: IdentifierSchema.optional(),
    }),
    async handler({ params, body }) {
      const outcome = await control.sendSystemEvent(
        params['id']!,
        body.type,
        body.payload ?? {},
        body.conversation_id,
      );
      if (outcome === 'no_agent') throw fail('AGENT_NOT_FOUND', 'No such agent.');
      return ok({ outcome });
    },
  });
  return [setHook, removeHook, event];
}

function relationAndUserRoutes(control: ControlApi): Route[] {
  const relation = (change: 'suspend' | 'restore') =>
    defineRoute({
      method: 'POST',
      path: `/_control/conversations/:id/${change}`,
      auth: 'none',
      async handler({ params }) {
        const id = params['id']!;
        return ok(
          await guard(() =>
            change === 'suspend' ? control.suspendRelation(id) : control.restoreRelation(id),
          ),
        );
      },
    });
  const token = defineRoute({
    method: 'POST',
    path: '/_control/users/access-token',
    auth: 'none',
    body: z.strictObject({ user_id: IdentifierSchema, ...deviceFields }),
    async handler({ body }) {
      const device = {
        ...(body.device_id === undefined ? {} : { deviceId: body.device_id }),
        ...(body.device_name === undefined ? {} : { deviceName: body.device_name }),
      };
      const t = await guard(() => control.accessToken(body.user_id, device));
      return ok({
        user_id: t.userId,
        device_id: t.deviceId,
        access_token: t.accessToken,
        refresh_token: t.refreshToken,
      });
    },
  });
  return [relation('suspend'), relation('restore'), token];
}

/** The part-2 control routes, bound to one {@link ControlApi}. */
export function agentControlRoutes(control: ControlApi): readonly Route[] {
  return [...agentRoutes(control), ...webhookAndEventRoutes(control), ...relationAndUserRoutes(control)];
}
