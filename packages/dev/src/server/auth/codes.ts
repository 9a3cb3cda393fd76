/**
 * Verification codes: 6 random digits per (email, scene), expiring after
 * `verificationCodeTtlMs`, single use, burned after
 * `verificationCodeAttempts` wrong guesses. A new code replaces the old one.
 *
 * @module
 */
import { randomInt } from 'node:crypto';
import type { ServerContext } from '../context.js';
import { invalidField } from '../http/failure.js';
import type { CodeScene } from '../store/types.js';

/** Creates and "emails" a new code; returns its lifetime in seconds. */
export async function issueCode(ctx: ServerContext, email: string, scene: CodeScene): Promise<number> {
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const now = ctx.clock.now();
  const expiresAtMs = now + ctx.options.verificationCodeTtlMs;
  await ctx.store.codes.put(email, scene, code, expiresAtMs, ctx.options.verificationCodeAttempts);
  await ctx.mailer({ to: email, scene, code, sentAtMs: now, expiresAtMs });
  return codeLifetimeSeconds(ctx);
}

/** Lifetime of a code in whole seconds. */
export function codeLifetimeSeconds(ctx: ServerContext): number {
  return Math.floor(ctx.options.verificationCodeTtlMs / 1000);
}

/**
 * Checks and consumes a code.
 *
 * @throws {@link ServerFailure} VALIDATION_ERROR `{ field: 'code', reason }` with reason
 * `invalid` (wrong, or none outstanding), `expired` or `too_many_attempts`.
 */
export async function consumeCode(
  ctx: ServerContext,
  email: string,
  scene: CodeScene,
  code: string,
): Promise<void> {
  const check = await ctx.store.codes.consume(email, scene, code, ctx.clock.now());
  if (check === 'ok') return;
  if (check === 'expired') {
    throw invalidField('code', 'expired', {}, 'The verification code expired. Request a new one.');
  }
  if (check === 'too_many_attempts') {
    throw invalidField('code', 'too_many_attempts', {}, 'Too many wrong codes. Request a new one.');
  }
  throw invalidField('code', 'invalid', {}, 'The verification code is wrong.');
}
