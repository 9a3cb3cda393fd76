/**
 * Passkey sign-in (public): `POST /auth/passkey/begin` returns WebAuthn
 * request options for a discoverable credential (conditional UI, so no
 * email and no allow-list); `POST /auth/passkey/complete` takes the
 * browser's assertion, verifies the signature with @simplewebauthn/server
 * (user verification required, counter checked) and signs the device in.
 * Every failed check is 401 PASSKEY_VERIFICATION_FAILED.
 *
 * @module
 */
import { z } from 'zod';
import { deviceFields, deviceInputOf } from '../auth/schemas.js';
import { signIn } from '../auth/sessions.js';
import { defineRoute, type Route } from '../http/router.js';
import { ok } from '../http/respond.js';
import {
  AuthenticationCredentialSchema,
  expectedOrigins,
  loadWebAuthn,
  passkeyFailed,
  PASSKEY_CHALLENGE_TTL_MS,
  rememberChallenge,
  takeChallenge,
} from './webauthn.js';

const begin = defineRoute({
  method: 'POST',
  path: '/auth/passkey/begin',
  auth: 'none',
  async handler({ ctx }) {
    const { generateAuthenticationOptions } = await loadWebAuthn();
    const options = await generateAuthenticationOptions({
      rpID: ctx.options.webauthn.rpId,
      userVerification: 'required',
      timeout: PASSKEY_CHALLENGE_TTL_MS,
    });
    await rememberChallenge(ctx, options.challenge, 'login');
    return ok({ options, expires_in_seconds: PASSKEY_CHALLENGE_TTL_MS / 1000 });
  },
});

const CompleteBodySchema = z.strictObject({ credential: AuthenticationCredentialSchema, ...deviceFields });

const complete = defineRoute({
  method: 'POST',
  path: '/auth/passkey/complete',
  auth: 'none',
  body: CompleteBodySchema,
  async handler({ body, ctx }) {
    const { credential } = body;
    const challenge = await takeChallenge(ctx, credential.response.clientDataJSON, 'login');
    const passkey = await ctx.store.passkeys.byCredentialId(credential.id);
    if (passkey === undefined) throw passkeyFailed();
    const handle = credential.response.userHandle;
    if (handle !== undefined && Buffer.from(handle, 'base64url').toString('utf8') !== passkey.userId) {
      throw passkeyFailed();
    }
    const { verifyAuthenticationResponse } = await loadWebAuthn();
    let newCounter: number;
    try {
      const result = await verifyAuthenticationResponse({
        response: credential as Parameters<typeof verifyAuthenticationResponse>[0]['response'],
        expectedChallenge: challenge,
        expectedOrigin: expectedOrigins(ctx),
        expectedRPID: ctx.options.webauthn.rpId,
        credential: {
          id: passkey.credentialId,
          publicKey: new Uint8Array(passkey.publicKey),
          counter: passkey.counter,
          transports: [...passkey.transports],
        },
        requireUserVerification: true,
      });
      if (!result.verified) throw passkeyFailed();
      newCounter = result.authenticationInfo.newCounter;
    } catch {
      throw passkeyFailed();
    }
    await ctx.store.passkeys.recordUse(passkey.credentialId, newCounter, ctx.clock.now());
    const user = await ctx.store.users.byId(passkey.userId);
    if (user === undefined) throw passkeyFailed();
    return signIn(ctx, user.userId, deviceInputOf(body));
  },
});

/** Routes of passkey sign-in. */
export const passkeyLoginRoutes: readonly Route[] = [begin, complete];
