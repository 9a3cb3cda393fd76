/**
 * Shared WebAuthn plumbing: the lazily loaded verifier library
 * (@simplewebauthn/server takes ~0.5 s to import, so it loads on the first
 * passkey request, not at start-up), the expected origins, request schemas
 * and challenge bookkeeping.
 *
 * @module
 */
import type * as SimpleWebAuthnModule from '@simplewebauthn/server';
import { z } from 'zod';
import type { ServerContext } from '../context.js';
import { fail, type ServerFailure } from '../http/failure.js';
import type { ChallengeRecord } from '../store/types.js';

type SimpleWebAuthn = typeof SimpleWebAuthnModule;

/** How long a passkey challenge stays valid. */
export const PASSKEY_CHALLENGE_TTL_MS = 300_000;

let library: Promise<SimpleWebAuthn> | undefined;

/** The WebAuthn library, imported on first use. */
export function loadWebAuthn(): Promise<SimpleWebAuthn> {
  library ??= import('@simplewebauthn/server');
  return library;
}

/** Origins accepted in `clientDataJSON`. */
export function expectedOrigins(ctx: ServerContext): string[] {
  const configured = ctx.options.webauthn.origins;
  if (configured !== undefined) return [...configured];
  const port = new URL(ctx.baseUrl).port;
  const origins = ['http://localhost', 'https://localhost'];
  if (port !== '') origins.push(`http://localhost:${port}`);
  return origins;
}

const b64url = z
  .string()
  .min(1)
  .max(16_384)
  .regex(/^[A-Za-z0-9_-]+={0,2}$/, { message: 'Must be base64url' });

/** `credential` of `POST /auth/passkey/complete` (the browser's AuthenticationResponseJSON). */
export const AuthenticationCredentialSchema = z.looseObject({
  id: b64url,
  rawId: b64url,
  type: z.literal('public-key'),
  response: z.looseObject({
    clientDataJSON: b64url,
    authenticatorData: b64url,
    signature: b64url,
    userHandle: b64url.optional(),
  }),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
});

/** `credential` of `POST /users/me/passkeys/complete` (the browser's RegistrationResponseJSON). */
export const RegistrationCredentialSchema = z.looseObject({
  id: b64url,
  rawId: b64url,
  type: z.literal('public-key'),
  response: z.looseObject({
    clientDataJSON: b64url,
    attestationObject: b64url,
    transports: z.array(z.string().max(32)).max(10).optional(),
  }),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
});

/** The single answer to every failed passkey check: no detail on which check failed. */
export function passkeyFailed(): ServerFailure {
  return fail('PASSKEY_VERIFICATION_FAILED', 'The passkey could not be verified.');
}

function challengeOf(clientDataJSON: string): string | undefined {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as unknown;
    const challenge = (data as { challenge?: unknown } | null)?.challenge;
    return typeof challenge === 'string' ? challenge : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes (single use) the outstanding challenge a response answers.
 *
 * @throws {@link ServerFailure} PASSKEY_VERIFICATION_FAILED when it is unknown, expired or of another purpose/user.
 */
export async function takeChallenge(
  ctx: ServerContext,
  clientDataJSON: string,
  purpose: ChallengeRecord['purpose'],
  userId?: string,
): Promise<string> {
  const challenge = challengeOf(clientDataJSON);
  if (challenge === undefined) throw passkeyFailed();
  const record = await ctx.store.passkeys.takeChallenge(challenge, ctx.clock.now());
  if (record === undefined || record.purpose !== purpose || record.userId !== userId) throw passkeyFailed();
  return challenge;
}

/** Stores a new challenge for `purpose`. */
export async function rememberChallenge(
  ctx: ServerContext,
  challenge: string,
  purpose: ChallengeRecord['purpose'],
  userId?: string,
): Promise<void> {
  const now = ctx.clock.now();
  await ctx.store.passkeys.putChallenge(
    { challenge, purpose, userId, expiresAtMs: now + PASSKEY_CHALLENGE_TTL_MS },
    now,
  );
}
