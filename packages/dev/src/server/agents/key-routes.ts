/**
 * Agent keys (agent token, own agent only) and public-key lookup.
 *
 * | Method | Path | Auth | Body | `data` |
 * |---|---|---|---|---|
 * | GET | /agents/:id/keys/challenge | agent | | `{ challenge, server_public_key, expires_at }` |
 * | PUT | /agents/:id/keys | agent | proof fields | 201 new / 200 unchanged: the key view |
 * | POST | /agents/:id/keys/check | agent | proof fields | `{ match: true, generation, key_id }`; 409 AGENT_KEYS_MISMATCH |
 * | GET | /keys/:principal_id | user or agent | | public keys of a user, agent or `system` |
 * | GET | /system/keys | none | | the system sender's public keys |
 *
 * Proof fields: `{ public_key, signing_public_key, challenge, signature, key_proof }` (see `key-proof.ts`).
 *
 * @module
 */
import { z } from 'zod';
import { toBase64 } from 'agent-messaging-sdk/protocol';
import { base64Schema, KeyStatementSchema } from 'agent-messaging-sdk/protocol';
import { defineRoute, type Route } from '../http/router.js';
import { ok } from '../http/respond.js';
import { checkKeys, registerKeys } from './key-registration.js';
import { lookupKeys } from './key-lookup.js';
import { keyView } from './records.js';
import { CORE_ROUTES } from 'agent-messaging-sdk/protocol';

const b64 = (bytes: number) => base64Schema({ bytes, maxChars: 128 });

/** Body of `PUT /agents/:id/keys` and `POST /agents/:id/keys/check`. */
export const KeyProofBodySchema = z.strictObject({
  public_key: b64(32),
  signing_public_key: b64(32),
  challenge: b64(32),
  signature: b64(64),
  key_proof: b64(32),
  /**
   * `PUT` only: replace registered keys that this agent no longer holds (the
   * self-heal after AGENT_KEYS_MISMATCH). The replaced pair is dropped at once.
   */
  replace: z.boolean().optional(),
  /**
   * `PUT` only: the key succession statement of a normal rotation (signed by
   * the previous generation; docs/keys.md). Its shape and its fields are checked
   * against the proven keys; the signature is the clients' to verify.
   */
  key_statement: KeyStatementSchema.optional(),
});

const challenge = defineRoute({
  method: CORE_ROUTES.keyChallenge.method,
  path: CORE_ROUTES.keyChallenge.path,
  auth: 'agent',
  handler({ ctx, principal }) {
    const issued = ctx.keyChallenges.issue(principal.agentId);
    return ok({
      challenge: issued.key,
      server_public_key: toBase64(issued.serverKeyPair.publicKey),
      expires_at: new Date(issued.expiresAtMs).toISOString(),
    });
  },
});

const register = defineRoute({
  method: CORE_ROUTES.registerAgentKeys.method,
  path: CORE_ROUTES.registerAgentKeys.path,
  auth: 'agent',
  body: KeyProofBodySchema,
  async handler({ ctx, principal, body }) {
    const { keys, changed } = await registerKeys(ctx, principal, body, {
      replace: body.replace === true,
      statement: body.key_statement,
    });
    return ok({ agent_id: principal.agentId, ...keyView(keys) }, changed ? 201 : 200);
  },
});

const check = defineRoute({
  method: CORE_ROUTES.checkAgentKeys.method,
  path: CORE_ROUTES.checkAgentKeys.path,
  auth: 'agent',
  body: KeyProofBodySchema,
  async handler({ ctx, principal, body }) {
    const { generation, keys } = await checkKeys(ctx, principal, body);
    return ok({ match: true, generation, key_id: keys.keyId, valid_until: keyView(keys).valid_until });
  },
});

const lookup = defineRoute({
  method: CORE_ROUTES.lookupKeys.method,
  path: CORE_ROUTES.lookupKeys.path,
  auth: 'user_or_agent',
  // Any agent may look keys up; the token's agent needs no path match here.
  agent: { selfOnly: false },
  handler: async ({ ctx, principal, params }) =>
    ok(await lookupKeys(ctx, principal, params['principal_id']!)),
});

const systemKeys = defineRoute({
  method: CORE_ROUTES.systemKeys.method,
  path: CORE_ROUTES.systemKeys.path,
  auth: 'none',
  handler: ({ ctx }) => ok(ctx.system.keys()),
});

/** Routes of agent keys and key lookup. */
export const agentKeyRoutes: readonly Route[] = [challenge, register, check, lookup, systemKeys];
