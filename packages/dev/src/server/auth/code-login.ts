/**
 * `POST /auth/login-code` (scene `login`) and `POST /auth/reset-password`
 * (scene `reset`). Both prove control of the mailbox, so both mark the email
 * verified. A reset sets the new password, clears the password lock and signs
 * every device out; the key backup is untouched.
 *
 * @module
 */
import type { ServerContext } from '../context.js';
import { defineRoute, type Route } from '../http/router.js';
import { invalidField } from '../http/failure.js';
import { ok } from '../http/respond.js';
import { consumeCode } from './codes.js';
import { LoginCodeBodySchema, ResetPasswordBodySchema, deviceInputOf } from './schemas.js';
import { revokeAllDevices, signIn } from './sessions.js';

const noCode = () => invalidField('code', 'invalid', {}, 'The verification code is wrong.');

/** Consumes the emailed code of `scene` and returns the account it was sent to. */
async function userForCode(ctx: ServerContext, email: string, scene: 'login' | 'reset', code: string) {
  await consumeCode(ctx, email, scene, code);
  const user = await ctx.store.users.byEmail(email);
  if (user === undefined) throw noCode();
  return user;
}

const loginCode = defineRoute({
  method: 'POST',
  path: '/auth/login-code',
  auth: 'none',
  body: LoginCodeBodySchema,
  async handler({ body, ctx }) {
    const user = await userForCode(ctx, body.email, 'login', body.code);
    if (!user.emailVerified) await ctx.store.users.markEmailVerified(user.userId);
    return signIn(ctx, user.userId, deviceInputOf(body));
  },
});

const resetPassword = defineRoute({
  method: 'POST',
  path: '/auth/reset-password',
  auth: 'none',
  body: ResetPasswordBodySchema,
  async handler({ body, ctx }) {
    const user = await userForCode(ctx, body.email, 'reset', body.code);
    await ctx.store.users.setPassword(user.userId, await ctx.passwords.hash(body.new_account_password));
    if (!user.emailVerified) await ctx.store.users.markEmailVerified(user.userId);
    const signedOut = await revokeAllDevices(ctx, user.userId);
    return ok({ password_reset: true, devices_signed_out: signedOut });
  },
});

/** Routes of code login and password reset. */
export const codeLoginRoutes: readonly Route[] = [loginCode, resetPassword];
