/**
 * The reference server refuses Ed25519 signing keys the SDK's rule refuses:
 * before the rule, the identity key registered with the forgery
 * `R = identity, S = 0` (node:crypto accepted it), without any secret.
 */
import { describe, expect, it } from 'vitest';
import { concatBytes, fromBase64, toBase64 } from '../../../../packages/sdk/src/core/encoding.js';
import { nodeBackend } from '../../../../packages/sdk/src/crypto/backend/node.js';
import { keyProofMacKey, keyProofTranscript } from '../../../../packages/sdk/src/crypto/key-proof.js';
import { generateKeys } from '../../../../packages/sdk/src/crypto/keys.js';
import { verifyKeyProof } from '../../../../packages/dev/src/server/agents/key-proof.js';
import { registerKeys } from '../../../../packages/dev/src/server/agents/key-registration.js';
import { createAgent } from '../../../../packages/dev/src/server/agents/service.js';
import { createServerContext } from '../../../../packages/dev/src/server/create-context.js';
import { isServerFailure, type ServerFailure } from '../../../../packages/dev/src/server/http/failure.js';
import { refuseUnacceptableSigningKey } from '../../../../packages/dev/src/server/keys/signing-key.js';

const node = nodeBackend()!;
const IDENTITY = Uint8Array.of(1, ...new Uint8Array(31));
const FORGERY = concatBytes(IDENTITY, new Uint8Array(32)); // R = identity, S = 0

function failureOf(fn: () => unknown): ServerFailure {
  try {
    fn();
  } catch (err) {
    if (isServerFailure(err)) return err;
    throw err;
  }
  throw new Error('expected a ServerFailure');
}

describe('unacceptable signing keys on the server', () => {
  it('the identity-key forgery no longer passes the proof of possession', () => {
    const ctx = createServerContext({ passwordHashing: { logN: 4 }, agentTokenBcryptCost: 4 });
    const issued = ctx.keyChallenges.issue('agent-1');
    const encryption = generateKeys().encryption;
    const t = keyProofTranscript(
      'agent-1',
      issued.challenge,
      encryption.publicKey,
      IDENTITY,
      issued.serverKeyPair.publicKey,
    );
    const shared = node.sync.x25519(encryption, issued.serverKeyPair.publicKey)!;
    const keyProof = node.sync.hmacSha256(keyProofMacKey(node, shared), t);
    const fields = {
      publicKey: encryption.publicKey,
      signingPublicKey: IDENTITY,
      signature: FORGERY,
      keyProof,
    };
    expect(verifyKeyProof(issued, fields)).toBe('signature');
  });

  it('PUT /agents/:id/keys refuses it as VALIDATION_ERROR unacceptable_key, before using the challenge', async () => {
    const ctx = createServerContext({ passwordHashing: { logN: 4 }, agentTokenBcryptCost: 4 });
    const { agent } = await createAgent(ctx, 'owner', 'A');
    const principal = { kind: 'agent' as const, agentId: agent.agentId, tokenId: agent.tokens[0]!.tokenId };
    const issued = ctx.keyChallenges.issue(agent.agentId);
    const body = {
      public_key: toBase64(generateKeys().encryption.publicKey),
      signing_public_key: toBase64(IDENTITY),
      challenge: issued.key,
      signature: toBase64(FORGERY),
      key_proof: toBase64(new Uint8Array(32)),
    };
    let caught: unknown;
    try {
      await registerKeys(ctx, principal, body);
    } catch (err) {
      caught = err;
    }
    expect(isServerFailure(caught)).toBe(true);
    const failure = caught as ServerFailure;
    expect([failure.code, failure.params]).toEqual([
      'VALIDATION_ERROR',
      { field: 'signing_public_key', reason: 'unacceptable_key', problem: 'small_order' },
    ]);
    expect(ctx.keyChallenges.take(agent.agentId, issued.key)).toBeDefined(); // not consumed
  });

  it('names the problem: non_canonical, small_order, mixed_order; accepts a real key', () => {
    const params = (key: Uint8Array) => failureOf(() => refuseUnacceptableSigningKey(key)).params;
    expect(params(Uint8Array.of(0xee, ...new Uint8Array(30).fill(0xff), 0x7f))).toMatchObject({
      problem: 'non_canonical',
    });
    expect(params(new Uint8Array(32))).toMatchObject({ problem: 'small_order' });
    const mixed = fromBase64('97rexbir6vaZWDmSIZt7Ij8d8/u+qRmETj98VUpD3UM=')!;
    expect(params(mixed)).toMatchObject({ problem: 'mixed_order' });
    expect(refuseUnacceptableSigningKey(generateKeys().signing.publicKey)).toBeUndefined();
  });
});
