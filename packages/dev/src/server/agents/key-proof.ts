/**
 * Proof that an agent holds the private keys of the public keys it
 * registers (or checks): one construction for `PUT /agents/:id/keys` and
 * `POST /agents/:id/keys/check`.
 *
 * 1. `GET /agents/:id/keys/challenge` answers `challenge` (32 random bytes)
 *    and `server_public_key` (a fresh X25519 public key `S`), single use,
 *    valid {@link KEY_CHALLENGE_TTL_MS}.
 * 2. The agent builds the transcript
 *    `T = "ams/agent-keys/v1" ‖ 0x00 ‖ UTF-8(agent_id) ‖ 0x00 ‖ challenge ‖ public_key ‖ signing_public_key ‖ S`
 *    (raw 32-byte keys) and sends
 *    - `signature = Ed25519-Sign(signing private key, T)`: proves the Ed25519 key;
 *    - `key_proof = HMAC-SHA256(SHA-256("ams/agent-keys/v1/x25519" ‖ X25519(x, S)), T)`:
 *      proves the X25519 key `x` (the server computes the same secret with `S`'s private half).
 * 3. The server rebuilds `T` and checks both. Either failing → 400 INVALID_SIGNATURE
 *    (`params.reason` `signature` or `key_proof`).
 *
 * All values are standard padded base64. The client side (`buildKeyProof`,
 * `keyProofTranscript`) lives in `packages/sdk/src/crypto/key-proof.ts` and is re-exported here.
 *
 * @module
 */
import { defaultSyncBackend } from 'agent-messaging-sdk/protocol';
import type { SyncCryptoBackend } from 'agent-messaging-sdk/protocol';
import { keyProofMacKey, keyProofTranscript } from 'agent-messaging-sdk/protocol';

// The client side (transcript, proof builder, wire types) lives in the SDK's crypto layer.
export {
  buildKeyProof,
  keyProofTranscript,
  type KeyChallenge,
  type KeyProofFields,
} from 'agent-messaging-sdk/protocol';

/** How long a key challenge stays valid: 5 minutes. */
export const KEY_CHALLENGE_TTL_MS = 300_000;

/** The server's half of a challenge. */
export interface IssuedChallenge {
  readonly agentId: string;
  readonly challenge: Uint8Array;
  readonly serverKeyPair: { readonly publicKey: Uint8Array; readonly privateKey: Uint8Array };
  readonly expiresAtMs: number;
}

/** Outcome of {@link verifyKeyProof}. */
export type KeyProofCheck = 'ok' | 'signature' | 'key_proof';

/**
 * Checks the proof fields against an issued challenge. Keys and signatures
 * must already be decoded (32-byte keys, 64-byte signature, 32-byte MAC).
 */
export function verifyKeyProof(
  issued: IssuedChallenge,
  fields: {
    readonly publicKey: Uint8Array;
    readonly signingPublicKey: Uint8Array;
    readonly signature: Uint8Array;
    readonly keyProof: Uint8Array;
  },
  backend: SyncCryptoBackend = defaultSyncBackend(),
): KeyProofCheck {
  const t = keyProofTranscript(
    issued.agentId,
    issued.challenge,
    fields.publicKey,
    fields.signingPublicKey,
    issued.serverKeyPair.publicKey,
  );
  if (!backend.sync.ed25519Verify(fields.signingPublicKey, t, fields.signature)) return 'signature';
  const shared = backend.sync.x25519(issued.serverKeyPair, fields.publicKey);
  if (shared === undefined) return 'key_proof';
  const expected = backend.sync.hmacSha256(keyProofMacKey(backend, shared), t);
  let diff = expected.length ^ fields.keyProof.length;
  for (let i = 0; i < expected.length; i++) diff |= expected[i]! ^ (fields.keyProof[i] ?? 0);
  return diff === 0 ? 'ok' : 'key_proof';
}
