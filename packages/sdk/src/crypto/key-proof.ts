/**
 * Proof of possession of an agent's key pairs: the client side of
 * `PUT /agents/:id/keys` (register) and `POST /agents/:id/keys/check`.
 *
 * Construction:
 * 1. `GET /agents/:id/keys/challenge` answers `challenge` (32 random bytes)
 *    and `server_public_key` (a one-time X25519 public key `S`).
 * 2. Transcript
 *    `T = "ams/agent-keys/v1" ‖ 0x00 ‖ UTF-8(agent_id) ‖ 0x00 ‖ challenge ‖ public_key ‖ signing_public_key ‖ S`
 *    (raw 32-byte keys).
 * 3. `signature = Ed25519-Sign(signing private key, T)` proves the Ed25519 key;
 *    `key_proof = HMAC-SHA256(SHA-256("ams/agent-keys/v1/x25519" ‖ X25519(x, S)), T)`
 *    proves the X25519 key `x` (the service computes the same secret with
 *    `S`'s private half). Nothing secret leaves the client.
 *
 * All wire values are standard padded base64. The service's verification is
 * the reference server's (`packages/dev/src/server/agents/key-proof.ts`), built on
 * {@link keyProofTranscript} and {@link keyProofMacKey} from here.
 *
 * @module
 */
import { concatBytes, fromBase64, toBase64, utf8 } from '../core/encoding.js';
import { defaultSyncBackend } from './backend/node-default.js';
import type { SyncCryptoBackend } from './backend/types.js';
import type { AgentKeys } from './keys.js';

const TRANSCRIPT_LABEL = utf8('ams/agent-keys/v1');
const X25519_LABEL = utf8('ams/agent-keys/v1/x25519');
const ZERO = Uint8Array.of(0);

/** The challenge as the service answers it (`GET /agents/:id/keys/challenge`, wire field names). */
export interface KeyChallenge {
  /** base64 of 32 random bytes. */
  readonly challenge: string;
  /** base64 X25519 public key of the service's one-time key pair. */
  readonly server_public_key: string;
}

/** The body of a registration or check: both public keys plus the proof (wire field names). */
export interface KeyProofFields {
  /** X25519 public key, base64. */
  readonly public_key: string;
  /** Ed25519 public key, base64. */
  readonly signing_public_key: string;
  /** The challenge being answered, as received. */
  readonly challenge: string;
  /** Ed25519 signature over the transcript, base64. */
  readonly signature: string;
  /** HMAC-SHA256 over the transcript under the X25519-derived key, base64. */
  readonly key_proof: string;
}

/**
 * The transcript `T` every proof signs and MACs.
 *
 * @example
 * ```ts
 * const t = keyProofTranscript(agentId, challenge, keys.encryption.publicKey, keys.signing.publicKey, serverKey);
 * ```
 */
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

/**
 * The HMAC key of `key_proof`: `SHA-256("ams/agent-keys/v1/x25519" ‖ sharedSecret)`.
 * Shared by the client (here) and the service's verification.
 */
export function keyProofMacKey(backend: SyncCryptoBackend, sharedSecret: Uint8Array): Uint8Array {
  return backend.sync.sha256(concatBytes(X25519_LABEL, sharedSecret));
}

/**
 * Builds the proof fields for `keys` against a challenge.
 *
 * @param agentId - the agent's id (bound into the transcript).
 * @param keys - the key pairs to prove (and register or check).
 * @param challenge - the service's challenge answer (extra fields ignored).
 * @param backend - @defaultValue node:crypto
 * @throws `TypeError` when the challenge fields are not base64 of 32 bytes or
 *   the server key is unusable (parse the answer first to get a ValidationError).
 * @throws {@link index!ConfigurationError | ConfigurationError} when the runtime has no synchronous crypto backend.
 * @example
 * ```ts
 * const challenge = await rest.get(`/agents/${id}/keys/challenge`);
 * await rest.put(`/agents/${id}/keys`, buildKeyProof(id, ring.current.keys, challenge));
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
    key_proof: toBase64(backend.sync.hmacSha256(keyProofMacKey(backend, shared), t)),
  };
}
