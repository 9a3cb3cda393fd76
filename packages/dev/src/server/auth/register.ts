/**
 * `POST /auth/send-code` and `POST /auth/register`.
 *
 * send-code answers the same whether or not the address has an account, so
 * it cannot be used to probe for accounts: for `login` and `reset` a code is
 * only created when the account exists; for `register` always (the owner of
 * the mailbox learns that the address is taken only after proving it).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { defineRoute, type Route } from '../http/router.js';
import { invalidField } from '../http/failure.js';
import { ok } from '../http/respond.js';
import { codeLifetimeSeconds, consumeCode, issueCode } from './codes.js';
import { RegisterBodySchema, SendCodeBodySchema, deviceInputOf } from './schemas.js';
import { signIn } from './sessions.js';
import { requireHuman } from './turnstile.js';

const sendCode = defineRoute({
  method: 'POST',
  path: '/auth/send-code',
  auth: 'none',
  body: SendCodeBodySchema,
  async handler({ body, ctx }) {
    await requireHuman(ctx.turnstile, body.turnstile_token);
    const exists = (await ctx.store.users.byEmail(body.email)) !== undefined;
    const expiresIn =
      body.scene === 'register' || exists
        ? await issueCode(ctx, body.email, body.scene)
        : codeLifetimeSeconds(ctx);
    return ok({ expires_in_seconds: expiresIn });
  },
});

const register = defineRoute({
  method: 'POST',
  path: '/auth/register',
  auth: 'none',
  body: RegisterBodySchema,
  async handler({ body, ctx }) {
    await requireHuman(ctx.turnstile, body.turnstile_token);
    await consumeCode(ctx, body.email, 'register', body.code);
    const created = await ctx.store.users.create({
      userId: randomUUID(),
      email: body.email,
      emailVerified: true,
      displayName: body.display_name.normalize('NFC'),
      deviceLocale: Intl.getCanonicalLocales(body.device_locale)[0] ?? body.device_locale,
      passwordHash: await ctx.passwords.hash(body.account_password),
      createdAtMs: ctx.clock.now(),
    });
    if (created === 'email_taken') {
      throw invalidField(
        'email',
        'already_registered',
        {},
        'An account with this email already exists. Sign in instead.',
      );
    }
    return signIn(ctx, created.userId, deviceInputOf(body), 201);
  },
});

/** Routes of registration. */
export const registrationRoutes: readonly Route[] = [sendCode, register];
