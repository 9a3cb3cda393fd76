/**
 * `POST /auth/login`: email + password, with the account lock.
 *
 * The 5th consecutive wrong password locks the account for 15 minutes and is
 * itself answered 423 ACCOUNT_LOCKED; during the lock every password login
 * (right or wrong) gets 423 with `params.retry_after` (seconds, rounded up)
 * and a `Retry-After` header. A success resets the count. Counting and
 * locking is one atomic store operation, so racing requests lock exactly once.
 * Unknown addresses spend the same hashing time and get the same 401.
 *
 * @module
 */
import { LIMITS } from 'agent-messaging-sdk/protocol';
import type { ServerContext } from '../context.js';
import { fail, ServerFailure } from '../http/failure.js';
import { defineRoute, type Route } from '../http/router.js';
import { LoginBodySchema, deviceInputOf } from './schemas.js';
import { signIn } from './sessions.js';
import { requireHuman } from './turnstile.js';

/** The lock rule of the service: 5 failures, 15 minutes. */
export const LOCK_POLICY = { maxFailures: LIMITS.LOGIN_MAX_FAILURES, lockMs: LIMITS.LOGIN_LOCK_MS } as const;

/** 423 ACCOUNT_LOCKED with the seconds left. */
export function lockedFailure(ctx: ServerContext, lockedUntilMs: number): ServerFailure {
  const retryAfter = Math.max(1, Math.ceil((lockedUntilMs - ctx.clock.now()) / 1000));
  return new ServerFailure({
    code: 'ACCOUNT_LOCKED',
    message: 'Too many failed logins. The account is locked for a while.',
    params: { retry_after: retryAfter },
    headers: { 'retry-after': String(retryAfter) },
  });
}

const wrongCredentials = (): ServerFailure => fail('UNAUTHORIZED', 'The email or password is wrong.');

const login = defineRoute({
  method: 'POST',
  path: '/auth/login',
  auth: 'none',
  body: LoginBodySchema,
  async handler({ body, ctx }) {
    await requireHuman(ctx.turnstile, body.turnstile_token);
    const user = await ctx.store.users.byEmail(body.email);
    if (user === undefined) {
      await ctx.passwords.verifyDummy(body.account_password);
      throw wrongCredentials();
    }
    if (user.lockedUntilMs > ctx.clock.now()) throw lockedFailure(ctx, user.lockedUntilMs);
    const good = await ctx.passwords.verify(body.account_password, user.passwordHash);
    if (!good) {
      const outcome = await ctx.store.users.recordLoginFailure(user.userId, ctx.clock.now(), LOCK_POLICY);
      if (outcome.locked) throw lockedFailure(ctx, outcome.lockedUntilMs);
      throw wrongCredentials();
    }
    const success = await ctx.store.users.recordLoginSuccess(user.userId, ctx.clock.now());
    if (success !== 'ok') throw lockedFailure(ctx, success.lockedUntilMs);
    if (!user.emailVerified) {
      throw fail(
        'EMAIL_VERIFICATION_REQUIRED',
        'Verify your email first: request a code with /auth/send-code.',
      );
    }
    return signIn(ctx, user.userId, deviceInputOf(body));
  },
});

/** Routes of password login. */
export const passwordLoginRoutes: readonly Route[] = [login];
