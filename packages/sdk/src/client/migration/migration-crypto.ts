/**
 * The cryptography of a device migration, on the async primitives of any
 * backend (Node, Bun, Deno, browsers):
 *
 * - each device makes an ephemeral X25519 pair for this session only;
 * - commitment = SHA-256("ams/migration/v1/commit" ‖ old_pub), sent before the
 *   new device's key is known, so a relay cannot choose keys that make the two
 *   verification strings agree;
 * - T = SHA-256("ams/migration/v1/transcript" ‖ session_id ‖ 0x00 ‖ old_pub ‖ new_pub);
 * - verification = the first 4 bytes of SHA-256("ams/migration/v1/verification" ‖ T)
 *   as a big-endian integer mod 10⁶, shown as `123 456`;
 * - bundle key = HKDF-SHA256(salt = T, ikm = X25519(own, peer), info = "ams/migration/v1/bundle", L = 32);
 * - sealed bundle = 0x01 ‖ nonce (12) ‖ AES-256-GCM(bundle key, nonce, JSON, aad = T).
 *
 * @module
 */
import { concatBytes, utf8 } from '../../core/encoding.js';
import { CryptoError } from '../../core/errors/crypto-error.js';
import { MIGRATION_COMMIT_LABEL } from '../../core/protocol/migration.js';
import type { CryptoBackend, RawKeyPair } from '../../crypto/backend/types.js';

const COMMIT = utf8(MIGRATION_COMMIT_LABEL);
const TRANSCRIPT = utf8('ams/migration/v1/transcript');
const VERIFICATION = utf8('ams/migration/v1/verification');
const BUNDLE_INFO = concatBytes(utf8('ams/migration/v1/bundle'), Uint8Array.of(1));
/** Version byte of a sealed bundle. */
export const SEALED_BUNDLE_VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** A fresh ephemeral X25519 pair. */
export function ephemeralKeyPair(backend: CryptoBackend): RawKeyPair {
  const privateKey = backend.randomBytes(32);
  return { privateKey, publicKey: backend.x25519PublicKey(privateKey) };
}

/** The commitment to the old device's ephemeral public key. */
export function commitmentOf(backend: CryptoBackend, oldPublicKey: Uint8Array): Promise<Uint8Array> {
  return backend.async.sha256(concatBytes(COMMIT, oldPublicKey));
}

/** The session transcript hash T (binds the session id and both ephemeral keys). */
export function transcriptOf(
  backend: CryptoBackend,
  sessionId: string,
  oldPublicKey: Uint8Array,
  newPublicKey: Uint8Array,
): Promise<Uint8Array> {
  return backend.async.sha256(
    concatBytes(TRANSCRIPT, utf8(sessionId), Uint8Array.of(0), oldPublicKey, newPublicKey),
  );
}

/** The 6-digit verification string of a transcript, as `123 456`. */
export async function verificationOf(backend: CryptoBackend, transcript: Uint8Array): Promise<string> {
  const h = await backend.async.sha256(concatBytes(VERIFICATION, transcript));
  const n = ((h[0]! << 24) | (h[1]! << 16) | (h[2]! << 8) | h[3]!) >>> 0;
  const digits = String(n % 1_000_000).padStart(6, '0');
  return `${digits.slice(0, 3)} ${digits.slice(3)}`;
}

function failed(message: string): CryptoError {
  return new CryptoError({ code: 'MIGRATION_VERIFICATION_FAILED', message });
}

/**
 * The bundle key both devices derive.
 *
 * @throws {@link CryptoError} `MIGRATION_VERIFICATION_FAILED` for a peer key that yields no secret.
 */
export async function bundleKeyOf(
  backend: CryptoBackend,
  own: RawKeyPair,
  peerPublicKey: Uint8Array,
  transcript: Uint8Array,
): Promise<Uint8Array> {
  const shared = await backend.async.x25519(own, peerPublicKey);
  if (shared === undefined) throw failed('The other device sent an unusable ephemeral key.');
  const prk = await backend.async.hmacSha256(transcript, shared);
  return backend.async.hmacSha256(prk, BUNDLE_INFO);
}

/** Seals the bundle's JSON bytes under the bundle key. */
export async function sealBundle(
  backend: CryptoBackend,
  key: Uint8Array,
  transcript: Uint8Array,
  plaintext: Uint8Array,
): Promise<Uint8Array> {
  const nonce = backend.randomBytes(NONCE_BYTES);
  const sealed = await backend.async.aesGcmEncrypt(key, nonce, plaintext, transcript);
  return concatBytes(Uint8Array.of(SEALED_BUNDLE_VERSION), nonce, sealed);
}

/** The parts of a sealed bundle, or undefined when it is too short or of another version. */
export function splitSealedBundle(bytes: Uint8Array): { nonce: Uint8Array; sealed: Uint8Array } | undefined {
  if (bytes.length < 1 + NONCE_BYTES + TAG_BYTES || bytes[0] !== SEALED_BUNDLE_VERSION) return undefined;
  return { nonce: bytes.subarray(1, 1 + NONCE_BYTES), sealed: bytes.subarray(1 + NONCE_BYTES) };
}

/**
 * Opens a sealed bundle.
 *
 * @throws {@link CryptoError} `MIGRATION_VERIFICATION_FAILED` when it is malformed or was not
 *   sealed under this session's key (a relay in the middle, or tampering).
 */
export async function openBundle(
  backend: CryptoBackend,
  key: Uint8Array,
  transcript: Uint8Array,
  bytes: Uint8Array,
): Promise<Uint8Array> {
  const parts = splitSealedBundle(bytes);
  const opened =
    parts === undefined
      ? undefined
      : await backend.async.aesGcmDecrypt(key, parts.nonce, parts.sealed, transcript);
  if (opened === undefined) {
    throw failed(
      'The migration bundle was not sealed for this session (tampered or relayed through a third party).',
    );
  }
  return opened;
}
