/**
 * The reference server's side of human decisions signed by the human
 * (docs/grants.md, docs/manifests.md): the user's client sends
 * `signed_decision` with a grant decision, a revocation or a manifest
 * decision; the server checks that it says what the request says and that it
 * verifies under the user's signing key (from the user's key backup), stores
 * it, and relays it unchanged inside the system event it sends the agent. The
 * agent verifies it again: the server's check only refuses a mistaken client
 * early, the agent's is the one that counts.
 *
 * @module
 */
import { fromBase64, verifyDecision, type SignedDecision } from 'agent-messaging-sdk/protocol';
import type { ServerContext } from '../context.js';
import { invalidField } from '../http/failure.js';

/** What the request says the statement must say (every field compared as-is). */
export type ExpectedStatement = Readonly<Record<string, string | number>>;

/**
 * Checks `signed` against the request and the user's signing key.
 *
 * @throws {@link ServerFailure} VALIDATION_ERROR (`field: signed_decision`, reason
 *   `mismatch`, `no_signing_key` or `bad_signature`).
 */
export async function checkSignedDecision(
  ctx: ServerContext,
  userId: string,
  signed: SignedDecision,
  expected: ExpectedStatement,
): Promise<SignedDecision> {
  const statement = signed.statement as Readonly<Record<string, unknown>>;
  for (const [field, value] of Object.entries({ ...expected, signer_id: userId })) {
    if (statement[field] !== value) {
      throw invalidField(
        'signed_decision',
        'mismatch',
        { statement_field: field },
        `The signed decision's ${field} does not match the request.`,
      );
    }
  }
  const backup = await ctx.store.keyBackups.get(userId);
  const b64 = (backup?.record as { signing_public_key?: string } | undefined)?.signing_public_key;
  const key = b64 === undefined ? undefined : fromBase64(b64);
  if (key?.length !== 32) {
    throw invalidField(
      'signed_decision',
      'no_signing_key',
      {},
      'The user has no signing key to verify the decision with.',
    );
  }
  if (!(await verifyDecision(signed, key))) {
    throw invalidField(
      'signed_decision',
      'bad_signature',
      {},
      "The signed decision does not verify under the user's signing key.",
    );
  }
  return signed;
}
