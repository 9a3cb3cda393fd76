/**
 * The cryptography of a device migration (version 2), on the async
 * primitives of any backend (Node, Bun, Deno, browsers):
 *
 * - each device makes an ephemeral X25519 pair for this session only;
 * - commitment = SHA-256("ams/migration/v2/commit" ‖ old_pub), sent before
 *   anything else; the new device sends new_pub only once it holds the
 *   commitment and the session id, and the old device reveals old_pub only
 *   once new_pub is in (commit-then-reveal on both sides);
 * - T = SHA-256("ams/migration/v2/transcript" ‖ session_id ‖ 0x00 ‖ old_pub ‖ new_pub);
 * - verification = the first 8 bytes of SHA-256("ams/migration/v2/verification" ‖ T)
 *   as a big-endian integer mod 10⁶, shown as `123 456`;
 * - account secret A = HMAC-SHA256(key = the account's X25519 private key,
 *   "ams/migration/v2/account"): the old device has it, the new device has it
 *   once it restored the key backup with the protection password, the service
 *   never has it;
 * - bundle key = HKDF-SHA256(salt = T, ikm = X25519(own, peer) ‖ A, info = "ams/migration/v2/bundle", L = 32);
 * - sealed bundle = 0x02 ‖ account X25519 public key (32) ‖ nonce (12) ‖
 *   AES-256-GCM(bundle key, nonce, JSON, aad = T ‖ 0x02 ‖ account public key).
 *
 * @module
 */
import { concatBytes, utf8 } from '../../core/encoding.js';
import { CryptoError } from '../../core/errors/crypto-error.js';
import { MIGRATION_COMMIT_LABEL } from '../../core/protocol/migration.js';
import type { CryptoBackend, RawKeyPair } from '../../crypto/backend/types.js';

const COMMIT = utf8(MIGRATION_COMMIT_LABEL);
const TRANSCRIPT = utf8('ams/migration/v2/transcript');
const VERIFICATION = utf8('ams/migration/v2/verification');
const ACCOUNT = utf8('ams/migration/v2/account');
const BUNDLE_INFO = concatBytes(utf8('ams/migration/v2/bundle'), Uint8Array.of(1));
/** Version byte of a sealed bundle. */
export const SEALED_BUNDLE_VERSION = 2;
const ACCOUNT_KEY_BYTES = 32;
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

/**
 * The 6-digit verification string of a transcript, as `123 456`: 64 bits of
 * the hash reduced mod 10⁶, so no value is likelier than
 * (⌊2⁶⁴/10⁶⌋ + 1)/2⁶⁴ = 10⁻⁶ · (1 + 5.5·10⁻¹⁴).
 */
export async function verificationOf(backend: CryptoBackend, transcript: Uint8Array): Promise<string> {
  const h = await backend.async.sha256(concatBytes(VERIFICATION, transcript));
  let n = 0n;
  for (let i = 0; i < 8; i++) n = (n << 8n) | BigInt(h[i]!);
  const digits = String(n % 1_000_000n).padStart(6, '0');
  return `${digits.slice(0, 3)} ${digits.slice(3)}`;
}

function failed(message: string): CryptoError {
  return new CryptoError({ code: 'MIGRATION_VERIFICATION_FAILED', message });
}

/**
 * The account secret A the bundle key mixes in: an HMAC under the account's
 * X25519 private key. Only holders of that key (the old device, and the new
 * one after restoring the backup with the protection password) can compute it.
 */
export function accountSecretOf(backend: CryptoBackend, accountPrivateKey: Uint8Array): Promise<Uint8Array> {
  return backend.async.hmacSha256(accountPrivateKey, ACCOUNT);
}

/**
 * The bundle key both devices derive, from the ephemeral exchange and the
 * account secret (see {@link accountSecretOf}).
 *
 * @throws {@link CryptoError} `MIGRATION_VERIFICATION_FAILED` for a peer key that yields no secret.
 */
export async function bundleKeyOf(
  backend: CryptoBackend,
  own: RawKeyPair,
  peerPublicKey: Uint8Array,
  transcript: Uint8Array,
  accountSecret: Uint8Array,
): Promise<Uint8Array> {
  const shared = await backend.async.x25519(own, peerPublicKey);
  if (shared === undefined) throw failed('The other device sent an unusable ephemeral key.');
  const prk = await backend.async.hmacSha256(transcript, concatBytes(shared, accountSecret));
  return backend.async.hmacSha256(prk, BUNDLE_INFO);
}

function aadOf(transcript: Uint8Array, accountPublicKey: Uint8Array): Uint8Array {
  return concatBytes(transcript, Uint8Array.of(SEALED_BUNDLE_VERSION), accountPublicKey);
}

/** Seals the bundle's JSON bytes under the bundle key, naming the account key it was sealed for. */
export async function sealBundle(
  backend: CryptoBackend,
  key: Uint8Array,
  transcript: Uint8Array,
  accountPublicKey: Uint8Array,
  plaintext: Uint8Array,
): Promise<Uint8Array> {
  const nonce = backend.randomBytes(NONCE_BYTES);
  const sealed = await backend.async.aesGcmEncrypt(
    key,
    nonce,
    plaintext,
    aadOf(transcript, accountPublicKey),
  );
  return concatBytes(Uint8Array.of(SEALED_BUNDLE_VERSION), accountPublicKey, nonce, sealed);
}

/** The parts of a sealed bundle. */
export interface SealedBundleParts {
  /** The account X25519 public key the old device sealed for (not authenticated until it opens). */
  readonly accountPublicKey: Uint8Array;
  readonly nonce: Uint8Array;
  readonly sealed: Uint8Array;
}

/** The parts of a sealed bundle, or undefined when it is too short or of another version. */
export function splitSealedBundle(bytes: Uint8Array): SealedBundleParts | undefined {
  const head = 1 + ACCOUNT_KEY_BYTES + NONCE_BYTES;
  if (bytes.length < head + TAG_BYTES || bytes[0] !== SEALED_BUNDLE_VERSION) return undefined;
  return {
    accountPublicKey: bytes.subarray(1, 1 + ACCOUNT_KEY_BYTES),
    nonce: bytes.subarray(1 + ACCOUNT_KEY_BYTES, head),
    sealed: bytes.subarray(head),
  };
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
      : await backend.async.aesGcmDecrypt(
          key,
          parts.nonce,
          parts.sealed,
          aadOf(transcript, parts.accountPublicKey),
        );
  if (opened === undefined) {
    throw failed(
      'The migration bundle was not sealed for this session (tampered or relayed through a third party).',
    );
  }
  return opened;
}
