import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromBase64, toBase64 } from '../../../../packages/sdk/src/core/encoding.js';
import { generateKeys } from '../../../../packages/sdk/src/crypto/index.js';
import {
  buildKeyProof,
  verifyKeyProof,
  type IssuedChallenge,
} from '../../../../packages/dev/src/server/agents/key-proof.js';

function issue(agentId: string): IssuedChallenge {
  const server = generateKeys().encryption;
  return {
    agentId,
    challenge: crypto.getRandomValues(new Uint8Array(32)),
    serverKeyPair: server,
    expiresAtMs: 0,
  };
}

function decoded(fields: ReturnType<typeof buildKeyProof>) {
  return {
    publicKey: fromBase64(fields.public_key)!,
    signingPublicKey: fromBase64(fields.signing_public_key)!,
    signature: fromBase64(fields.signature)!,
    keyProof: fromBase64(fields.key_proof)!,
  };
}

const wire = (c: IssuedChallenge) => ({
  challenge: toBase64(c.challenge),
  server_public_key: toBase64(c.serverKeyPair.publicKey),
});

describe('key proof of possession', () => {
  it('a proof built for the keys verifies', () => {
    const keys = generateKeys();
    const c = issue('agent-1');
    expect(verifyKeyProof(c, decoded(buildKeyProof('agent-1', keys, wire(c))))).toBe('ok');
  });

  it('is bound to the agent id, the challenge and both keys', () => {
    const keys = generateKeys();
    const c = issue('agent-1');
    const proof = decoded(buildKeyProof('agent-1', keys, wire(c)));
    expect(verifyKeyProof({ ...c, agentId: 'agent-2' }, proof)).toBe('signature');
    expect(verifyKeyProof({ ...c, challenge: new Uint8Array(32) }, proof)).toBe('signature');
    const other = generateKeys();
    expect(verifyKeyProof(c, { ...proof, publicKey: other.encryption.publicKey })).toBe('signature');
    // A signing key the agent holds with an X25519 key it does not hold.
    const mixed = buildKeyProof('agent-1', { encryption: other.encryption, signing: keys.signing }, wire(c));
    const forged = { ...decoded(mixed), keyProof: proof.keyProof };
    expect(verifyKeyProof(c, forged)).toBe('key_proof');
  });

  it('property: flipping any bit of the signature or the proof fails', () => {
    const keys = generateKeys();
    const c = issue('agent-x');
    const proof = decoded(buildKeyProof('agent-x', keys, wire(c)));
    fc.assert(
      fc.property(fc.boolean(), fc.nat(), fc.integer({ min: 0, max: 7 }), (inSignature, at, bit) => {
        const field = inSignature ? proof.signature : proof.keyProof;
        const copy = Uint8Array.from(field);
        copy[at % copy.length]! ^= 1 << bit;
        const tampered = inSignature ? { ...proof, signature: copy } : { ...proof, keyProof: copy };
        expect(verifyKeyProof(c, tampered)).not.toBe('ok');
      }),
    );
  });

  it('refuses a malformed challenge', () => {
    expect(() =>
      buildKeyProof('a', generateKeys(), { challenge: 'AAAA', server_public_key: 'AAAA' }),
    ).toThrow(TypeError);
  });
});
