/**
 * The server's check of an Ed25519 signing key before it is registered
 * (`PUT /agents/:id/keys`) or published from a user's key backup
 * (`POST /keys/backup`): the SDK's one verification rule
 * (`packages/sdk/src/crypto/ed25519-rules.ts`) decides.
 *
 * @module
 */
import { ed25519KeyProblem } from 'agent-messaging-sdk/protocol';
import { invalidField } from '../http/failure.js';

/**
 * Refuses an Ed25519 key that the SDK's verification rule would refuse
 * (`packages/sdk/src/crypto/ed25519-rules.ts`): non-canonical, small-order or mixed-order.
 * OpenSSL alone accepts some of them, and the identity key verifies
 * `R = identity, S = 0` for every message.
 *
 * @throws `ServerFailure` VALIDATION_ERROR `field: signing_public_key`,
 *   `reason: unacceptable_key`, `problem: non_canonical | small_order | mixed_order`.
 */
export function refuseUnacceptableSigningKey(signingPublicKey: Uint8Array): void {
  const problem = ed25519KeyProblem(signingPublicKey);
  if (problem === undefined) return;
  throw invalidField(
    'signing_public_key',
    'unacceptable_key',
    { problem },
    'The signing key is not an acceptable Ed25519 key (non-canonical, small order or mixed order).',
  );
}
