/**
 * `POST /auth/login-code` (scene `login`) and `POST /auth/reset-password`
 * (scene `reset`). Both prove control of the mailbox, so both mark the email
 * verified. A reset sets the new password, clears the password lock and signs
 * every device out; the key backup is untouched.
 *
 * @module
 */
import { defineRoute, type Route } from '../http/router.js';
import { invalidField } from '../http/failure.js';
import { ok } from '../http/respond.js';
import { consumeCode } from './codes.js';
import { LoginCodeBodySchema, ResetPasswordBodySchema, deviceInputOf } from './schemas.js';
import { revokeAllDevices, signIn } from './sessions.js';

const noCode = () => invalidField('code', 'invalid', {}, 'The verification code is wrong.');

const loginCode = defineRoute({
  method: 'POST',
  path: '/auth/login-code',
  auth: 'none',
  body: LoginCodeBodySchema,
  async handler({ body, ctx }) {
    await consumeCode(ctx, body.email, 'login', body.code);
    const user = await ctx.store.users.byEmail(body.email);
    if (user === undefined) throw noCode();
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
    await consumeCode(ctx, body.email, 'reset', body.code);
    const user = await ctx.store.users.byEmail(body.email);
    if (user === undefined) throw noCode();
    await ctx.store.users.setPassword(user.userId, await ctx.passwords.hash(body.new_account_password));
    if (!user.emailVerified) await ctx.store.users.markEmailVerified(user.userId);
    const signedOut = await revokeAllDevices(ctx, user.userId);
    return ok({ password_reset: true, devices_signed_out: signedOut });
  },
});

/** Routes of code login and password reset. */
export const codeLoginRoutes: readonly Route[] = [loginCode, resetPassword];
