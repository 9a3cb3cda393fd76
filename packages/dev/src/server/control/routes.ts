/**
 * The control API over HTTP, under `/_control/…`. Registered only in dev
 * mode; otherwise these paths are unknown (404 NOT_FOUND).
 *
 * | Method | Path | Body / query | data |
 * |---|---|---|---|
 * | GET | /_control/emails | `?email=&scene=` | `[{ to, scene, code, sent_at, expires_at }]`, newest first |
 * | GET, PUT | /_control/turnstile | `{ default: 'pass'｜'fail', pass?: [], fail?: [] }` | the policy |
 * | GET | /_control/clock | | `{ now_ms, now, virtual }` |
 * | POST | /_control/clock/advance | `{ ms }` | `{ now_ms, now, virtual }` |
 * | POST | /_control/users | `{ email, account_password, display_name?, device_locale?, email_verified? }` | `{ user_id }` (201) |
 * | GET | /_control/users | `?email=` | account state (lock, devices, backup) |
 *
 * @module
 */
import { z } from 'zod';
import { isConfigurationError } from 'agent-messaging-sdk/protocol';
import { EmailSchema } from '../auth/schemas.js';
import type { ServerContext } from '../context.js';
import { fail, invalidField } from '../http/failure.js';
import { defineRoute, type Route } from '../http/router.js';
import { ok } from '../http/respond.js';
import { parseBody } from '../http/validation.js';
import type { VerificationEmail } from '../auth/mailbox.js';
import { agentControlRoutes } from './agent-routes.js';
import type { AccountState, ControlApi } from './control-api.js';

const MAX_ADVANCE_MS = 400 * 24 * 3_600_000;
const iso = (ms: number): string => new Date(ms).toISOString();
const SceneSchema = z.enum(['register', 'login', 'reset']);

const TurnstileBodySchema = z.strictObject({
  default: z.enum(['pass', 'fail']),
  pass: z.array(z.string().max(4096)).max(1000).optional(),
  fail: z.array(z.string().max(4096)).max(1000).optional(),
});

const UserBodySchema = z.strictObject({
  email: EmailSchema,
  account_password: z.string().min(1).max(1024),
  display_name: z.string().min(2).max(24).optional(),
  device_locale: z.string().min(2).max(64).optional(),
  email_verified: z.boolean().optional(),
});

function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (isConfigurationError(err))
      throw fail('VALIDATION_ERROR', err.message, { reason: 'not_available', option: err.option });
    throw err;
  }
}

function clockData(ctx: ServerContext) {
  const now = ctx.clock.now();
  return { now_ms: now, now: iso(now), virtual: ctx.virtualClock !== undefined };
}

function emailToWire(m: VerificationEmail) {
  return { to: m.to, scene: m.scene, code: m.code, sent_at: iso(m.sentAtMs), expires_at: iso(m.expiresAtMs) };
}

function accountToWire(state: AccountState) {
  return {
    user_id: state.userId,
    email: state.email,
    email_verified: state.emailVerified,
    failed_logins: state.failedLogins,
    locked_until: state.lockedUntilMs === undefined ? null : iso(state.lockedUntilMs),
    lock_count: state.lockCount,
    device_count: state.deviceCount,
    has_key_backup: state.hasKeyBackup,
  };
}

function queryEmail(query: URLSearchParams): string {
  return parseBody(z.strictObject({ email: EmailSchema }), { email: query.get('email') ?? undefined }).email;
}

function emailRoutes(control: ControlApi): Route[] {
  const list = defineRoute({
    method: 'GET',
    path: '/_control/emails',
    auth: 'none',
    handler({ req }) {
      const scene = req.query.get('scene');
      const parsedScene = scene === null ? undefined : SceneSchema.safeParse(scene).data;
      if (scene !== null && parsedScene === undefined) throw invalidField('scene', 'invalid_value');
      const emails = guard(() => control.emails(queryEmail(req.query), parsedScene));
      return ok(emails.map(emailToWire));
    },
  });
  return [list];
}

function turnstileRoutes(control: ControlApi): Route[] {
  const read = defineRoute({
    method: 'GET',
    path: '/_control/turnstile',
    auth: 'none',
    handler: () => ok(guard(() => control.turnstilePolicy)),
  });
  const write = defineRoute({
    method: 'PUT',
    path: '/_control/turnstile',
    auth: 'none',
    body: TurnstileBodySchema,
    handler({ body }) {
      const policy = { default: body.default, pass: body.pass ?? [], fail: body.fail ?? [] };
      guard(() => control.setTurnstilePolicy(policy));
      return ok(control.turnstilePolicy);
    },
  });
  return [read, write];
}

function clockRoutes(control: ControlApi): Route[] {
  const read = defineRoute({
    method: 'GET',
    path: '/_control/clock',
    auth: 'none',
    handler: ({ ctx }) => ok(clockData(ctx)),
  });
  const advance = defineRoute({
    method: 'POST',
    path: '/_control/clock/advance',
    auth: 'none',
    body: z.strictObject({ ms: z.int().min(0).max(MAX_ADVANCE_MS) }),
    handler({ body, ctx }) {
      guard(() => control.advanceTime(body.ms));
      return ok(clockData(ctx));
    },
  });
  return [read, advance];
}

function userRoutes(control: ControlApi): Route[] {
  const create = defineRoute({
    method: 'POST',
    path: '/_control/users',
    auth: 'none',
    body: UserBodySchema,
    async handler({ body, ctx }) {
      if (await ctx.store.users.byEmail(body.email)) throw invalidField('email', 'already_registered');
      const userId = await control.createUser({
        email: body.email,
        password: body.account_password,
        ...(body.display_name === undefined ? {} : { displayName: body.display_name }),
        ...(body.device_locale === undefined ? {} : { deviceLocale: body.device_locale }),
        ...(body.email_verified === undefined ? {} : { emailVerified: body.email_verified }),
      });
      return ok({ user_id: userId }, 201);
    },
  });
  const read = defineRoute({
    method: 'GET',
    path: '/_control/users',
    auth: 'none',
    async handler({ req }) {
      const state = await control.account(queryEmail(req.query));
      if (state === undefined) throw fail('USER_NOT_FOUND', 'No account has this email.');
      return ok(accountToWire(state));
    },
  });
  return [create, read];
}

/** The control routes, bound to one {@link ControlApi} (part 2's in `agent-routes.ts`). */
export function controlRoutes(control: ControlApi): readonly Route[] {
  return [
    ...emailRoutes(control),
    ...turnstileRoutes(control),
    ...clockRoutes(control),
    ...userRoutes(control),
    ...agentControlRoutes(control),
  ];
}
