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
 * All values are standard padded base64. {@link buildKeyProof} is the client side.
 *
 * @module
 */
import { concatBytes, fromBase64, toBase64, utf8 } from '../../core/encoding.js';
import { defaultSyncBackend } from '../../crypto/backend/node-default.js';
import type { SyncCryptoBackend } from '../../crypto/backend/types.js';
import type { AgentKeys } from '../../crypto/keys.js';

/** How long a key challenge stays valid: 5 minutes. */
export const KEY_CHALLENGE_TTL_MS = 300_000;

const TRANSCRIPT_LABEL = utf8('ams/agent-keys/v1');
const X25519_LABEL = utf8('ams/agent-keys/v1/x25519');
const ZERO = Uint8Array.of(0);

/** The challenge as the server answers it. */
export interface KeyChallenge {
  /** base64 of 32 random bytes. */
  readonly challenge: string;
  /** base64 X25519 public key of the server's one-time key pair. */
  readonly server_public_key: string;
}

/** The proof fields of a registration or check body (public keys plus proof). */
export interface KeyProofFields {
  readonly public_key: string;
  readonly signing_public_key: string;
  readonly challenge: string;
  readonly signature: string;
  readonly key_proof: string;
}

/** The transcript `T` every proof signs. */
export function keyProofTranscript(
  agentId: string,
  challenge: Uint8Array,
  publicKey: Uint8Array,
  signingPublicKey: Uint8Array,
  serverPublicKey: Uint8Array,
): Uint8Array {
  return concatBytes(
    TRANSCRIPT_LABEL,
    ZERO,
    utf8(agentId),
    ZERO,
    challenge,
    publicKey,
    signingPublicKey,
    serverPublicKey,
  );
}

function macKey(backend: SyncCryptoBackend, sharedSecret: Uint8Array): Uint8Array {
  return backend.sync.sha256(concatBytes(X25519_LABEL, sharedSecret));
}

/**
 * Builds the proof fields for `keys` against a challenge (the client side).
 *
 * @throws `TypeError` when the challenge fields are not base64 of the right sizes.
 * @example
 * ```ts
 * const challenge = (await get(`/agents/${id}/keys/challenge`)).data;
 * await put(`/agents/${id}/keys`, buildKeyProof(id, keys, challenge));
 * ```
 */
export function buildKeyProof(
  agentId: string,
  keys: AgentKeys,
  challenge: KeyChallenge,
  backend: SyncCryptoBackend = defaultSyncBackend(),
): KeyProofFields {
  const nonce = fromBase64(challenge.challenge);
  const serverKey = fromBase64(challenge.server_public_key);
  if (nonce?.length !== 32 || serverKey?.length !== 32) throw new TypeError('Malformed key challenge');
  const t = keyProofTranscript(agentId, nonce, keys.encryption.publicKey, keys.signing.publicKey, serverKey);
  const shared = backend.sync.x25519(keys.encryption, serverKey);
  if (shared === undefined) throw new TypeError('Malformed key challenge');
  return {
    public_key: toBase64(keys.encryption.publicKey),
    signing_public_key: toBase64(keys.signing.publicKey),
    challenge: challenge.challenge,
    signature: toBase64(backend.sync.ed25519Sign(keys.signing, t)),
    key_proof: toBase64(backend.sync.hmacSha256(macKey(backend, shared), t)),
  };
}

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
  const expected = backend.sync.hmacSha256(macKey(backend, shared), t);
  let diff = expected.length ^ fields.keyProof.length;
  for (let i = 0; i < expected.length; i++) diff |= expected[i]! ^ (fields.keyProof[i] ?? 0);
  return diff === 0 ? 'ok' : 'key_proof';
}
