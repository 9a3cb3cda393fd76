/**
 * Envelope v1 key schedule: how the key-encryption key of each wrap and the
 * signed message are derived. Written once over sync or async primitives.
 *
 * - KEK_i = HKDF-SHA256(salt = E ‖ R_i, ikm = X25519(e, R_i), info = "ams/envelope/v1/wrap" ‖ H ‖ u16(i), L = 32)
 * - wrap_i = AES-256-GCM(KEK_i, nonce = 0¹², plaintext = content key, aad = H)
 * - content = AES-256-GCM(content key, nonce, plaintext = payload JSON, aad = H)
 * - signature = Ed25519(sender, "ams/envelope/v1/signature" ‖ SHA-256(body))
 *
 * where H = SHA-256(header bytes). HKDF with L = 32 is exactly two HMAC calls
 * (extract, then one expand block), which is what we compute.
 *
 * v1.1 adds key commitment: the content key CK is not used directly but
 * through HKDF-Expand (RFC 5869 §3.3: CK is already a uniformly random
 * 32-byte key, so it serves as the PRK and Extract is skipped) with two
 * distinct info labels, each followed by H:
 *
 * - content AEAD key = HKDF-Expand(CK, "ams/envelope/v1.1/content" ‖ H, 32) = HMAC-SHA256(CK, info ‖ 0x01)
 * - commitment = HKDF-Expand(CK, "ams/envelope/v1.1/commitment" ‖ H, 32), signed with the body
 *
 * @module
 */
import { concatBytes, utf8 } from '../core/encoding.js';
import type { AsyncPrimitives, SyncPrimitives } from './backend/types.js';

/** HKDF info label of key wraps. */
export const WRAP_LABEL: Uint8Array = utf8('ams/envelope/v1/wrap');
/** Prefix of the message the sender signs. */
export const SIGNATURE_LABEL: Uint8Array = utf8('ams/envelope/v1/signature');
/** v1.1: HKDF info label of the content AEAD key (followed by H). */
export const CONTENT_KEY_LABEL: Uint8Array = utf8('ams/envelope/v1.1/content');
/** v1.1: HKDF info label of the key commitment (followed by H). */
export const COMMITMENT_LABEL: Uint8Array = utf8('ams/envelope/v1.1/commitment');

const BLOCK_1 = Uint8Array.of(1);

/** v1.1: HKDF-Expand inputs (label ‖ H ‖ 0x01) of the content AEAD key and of the commitment. */
export function committedExpandInputs(headerHash: Uint8Array): { aead: Uint8Array; commitment: Uint8Array } {
  return {
    aead: concatBytes(CONTENT_KEY_LABEL, headerHash, BLOCK_1),
    commitment: concatBytes(COMMITMENT_LABEL, headerHash, BLOCK_1),
  };
}
/** Nonce of every key wrap: 12 zero bytes (each KEK encrypts exactly one message). */
export const WRAP_NONCE: Uint8Array = new Uint8Array(12);

/** HKDF salt of wrap `i`: ephemeral public key ‖ recipient public key. */
export function wrapSalt(ephemeralPublicKey: Uint8Array, recipientPublicKey: Uint8Array): Uint8Array {
  return concatBytes(ephemeralPublicKey, recipientPublicKey);
}

/** HKDF-Expand input of wrap `index`: info ‖ 0x01 (the first and only block counter). */
export function wrapExpandInput(headerHash: Uint8Array, index: number): Uint8Array {
  return concatBytes(WRAP_LABEL, headerHash, Uint8Array.of(index >> 8, index & 0xff, 0x01));
}

/** The message Ed25519 signs: label ‖ SHA-256(body). */
export function signedMessage(bodyDigest: Uint8Array): Uint8Array {
  return concatBytes(SIGNATURE_LABEL, bodyDigest);
}

/** KEK of one wrap (HKDF-SHA256, L = 32) on the sync primitives. */
export function deriveKek(
  s: SyncPrimitives,
  sharedSecret: Uint8Array,
  salt: Uint8Array,
  expandInput: Uint8Array,
): Uint8Array {
  return s.hmacSha256(s.hmacSha256(salt, sharedSecret), expandInput);
}

/** KEK of one wrap (HKDF-SHA256, L = 32) on the async primitives. */
export async function deriveKekAsync(
  a: AsyncPrimitives,
  sharedSecret: Uint8Array,
  salt: Uint8Array,
  expandInput: Uint8Array,
): Promise<Uint8Array> {
  return a.hmacSha256(await a.hmacSha256(salt, sharedSecret), expandInput);
}

/** The v1.1 content AEAD key and the key commitment, both derived from the content key. */
export interface CommittedKeys {
  /** Key of the content AES-256-GCM. */
  readonly aeadKey: Uint8Array;
  /** 32-byte commitment to the content key, carried under the signature. */
  readonly commitment: Uint8Array;
}

/** v1.1 derivation of the content AEAD key and the commitment, on the sync primitives. */
export function deriveCommitted(
  s: SyncPrimitives,
  contentKey: Uint8Array,
  headerHash: Uint8Array,
): CommittedKeys {
  const input = committedExpandInputs(headerHash);
  return {
    aeadKey: s.hmacSha256(contentKey, input.aead),
    commitment: s.hmacSha256(contentKey, input.commitment),
  };
}

/** v1.1 derivation of the content AEAD key and the commitment, on the async primitives. */
export async function deriveCommittedAsync(
  a: AsyncPrimitives,
  contentKey: Uint8Array,
  headerHash: Uint8Array,
): Promise<CommittedKeys> {
  const input = committedExpandInputs(headerHash);
  const [aeadKey, commitment] = await Promise.all([
    a.hmacSha256(contentKey, input.aead),
    a.hmacSha256(contentKey, input.commitment),
  ]);
  return { aeadKey, commitment };
}

/** Constant-time equality of two byte strings of public length. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
