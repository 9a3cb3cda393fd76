/**
 * Passkeys of the signed-in user (not shown by the service interface; the
 * reference server's addition): `POST /users/me/passkeys/begin` returns
 * WebAuthn creation options (resident key and user verification required,
 * attestation `none`), `POST /users/me/passkeys/complete` verifies the
 * attestation and stores the credential; `GET /users/me/passkeys` lists them
 * and `DELETE /users/me/passkeys/:credential_id` removes one.
 *
 * @module
 */
import { z } from 'zod';
import { DeviceNameSchema } from '../auth/schemas.js';
import { fail, invalidField } from '../http/failure.js';
import { defineRoute, type Route } from '../http/router.js';
import { ok } from '../http/respond.js';
import {
  expectedOrigins,
  loadWebAuthn,
  passkeyFailed,
  PASSKEY_CHALLENGE_TTL_MS,
  RegistrationCredentialSchema,
  rememberChallenge,
  takeChallenge,
} from './webauthn.js';
import { CORE_ROUTES } from 'agent-messaging-sdk/protocol';

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());

const begin = defineRoute({
  method: CORE_ROUTES.beginPasskeyRegistration.method,
  path: CORE_ROUTES.beginPasskeyRegistration.path,
  auth: 'user',
  async handler({ principal, ctx }) {
    const user = await ctx.store.users.byId(principal.userId);
    if (user === undefined) throw fail('USER_NOT_FOUND', 'The account no longer exists.');
    const existing = await ctx.store.passkeys.listByUser(user.userId);
    const { generateRegistrationOptions } = await loadWebAuthn();
    const options = await generateRegistrationOptions({
      rpName: ctx.options.webauthn.rpName,
      rpID: ctx.options.webauthn.rpId,
      userName: user.email,
      userDisplayName: user.displayName,
      userID: new TextEncoder().encode(user.userId),
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: [...p.transports] })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      timeout: PASSKEY_CHALLENGE_TTL_MS,
    });
    await rememberChallenge(ctx, options.challenge, 'register', user.userId);
    return ok({ options, expires_in_seconds: PASSKEY_CHALLENGE_TTL_MS / 1000 });
  },
});

const CompleteBodySchema = z.strictObject({
  credential: RegistrationCredentialSchema,
  name: DeviceNameSchema.optional(),
});

const complete = defineRoute({
  method: CORE_ROUTES.completePasskeyRegistration.method,
  path: CORE_ROUTES.completePasskeyRegistration.path,
  auth: 'user',
  body: CompleteBodySchema,
  async handler({ body, principal, ctx }) {
    const { credential } = body;
    const challenge = await takeChallenge(
      ctx,
      credential.response.clientDataJSON,
      'register',
      principal.userId,
    );
    const { verifyRegistrationResponse } = await loadWebAuthn();
    let info;
    try {
      const result = await verifyRegistrationResponse({
        response: credential as Parameters<typeof verifyRegistrationResponse>[0]['response'],
        expectedChallenge: challenge,
        expectedOrigin: expectedOrigins(ctx),
        expectedRPID: ctx.options.webauthn.rpId,
        requireUserVerification: true,
      });
      if (!result.verified) throw passkeyFailed();
      info = result.registrationInfo;
    } catch {
      throw passkeyFailed();
    }
    const now = ctx.clock.now();
    const added = await ctx.store.passkeys.add({
      credentialId: info.credential.id,
      userId: principal.userId,
      publicKey: new Uint8Array(info.credential.publicKey),
      counter: info.credential.counter,
      transports: credential.response.transports ?? [],
      name: body.name ?? `Passkey ${new Date(now).toISOString().slice(0, 10)}`,
      createdAtMs: now,
      lastUsedAtMs: undefined,
    });
    if (added === 'exists') throw invalidField('credential', 'already_registered');
    return ok({ credential_id: added.credentialId, name: added.name, created_at: iso(now) }, 201);
  },
});

const list = defineRoute({
  method: CORE_ROUTES.listPasskeys.method,
  path: CORE_ROUTES.listPasskeys.path,
  auth: 'user',
  async handler({ principal, ctx }) {
    const passkeys = await ctx.store.passkeys.listByUser(principal.userId);
    return ok(
      passkeys.map((p) => ({
        credential_id: p.credentialId,
        name: p.name,
        created_at: iso(p.createdAtMs),
        last_used_at: iso(p.lastUsedAtMs),
      })),
    );
  },
});

const remove = defineRoute({
  method: CORE_ROUTES.removePasskey.method,
  path: CORE_ROUTES.removePasskey.path,
  auth: 'user',
  async handler({ params, principal, ctx }) {
    const id = params['credential_id'] ?? '';
    if (!(await ctx.store.passkeys.remove(principal.userId, id))) {
      throw fail('NOT_FOUND', 'This account has no such passkey.', { field: 'credential_id' });
    }
    return ok({ credential_id: id, removed: true });
  },
});

/** Routes of passkey management for the signed-in user. */
export const passkeyManagementRoutes: readonly Route[] = [begin, complete, list, remove];
