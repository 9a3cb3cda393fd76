/**
 * The one Ed25519 verification rule of this SDK, applied by every backend
 * before (and, for @noble, instead of) its own verify, so that node:crypto,
 * WebCrypto and @noble/curves give the same verdict for every input.
 *
 * A signature `R ‖ S` of message `M` under public key `A` is accepted only when:
 *
 * 1. `A` is 32 bytes and `R ‖ S` is 64 bytes;
 * 2. `S < L` (the group order);
 * 3. `A` and `R` are canonical encodings: `y < p`, and the sign bit is clear when `x = 0`;
 * 4. `R` is not one of the 8 small-order points;
 * 5. `A` is not small-order and lies in the prime-order subgroup (`[L]A` is the
 *    identity), so keys with a torsion component ("mixed order") are refused;
 * 6. the cofactorless equation holds: `encode([S]B − [k]A) = R` with
 *    `k = SHA-512(R ‖ A ‖ M) mod L` (what OpenSSL checks).
 *
 * Rule 6 with rule 5 also refuses a mixed-order `R`: `[S]B − [k]A` is in the
 * prime-order subgroup, so it never equals an `R` with a torsion component. Under
 * rules 2–5 the cofactored and cofactorless equations therefore accept exactly the
 * same signatures, and any RFC 8032 verifier that runs after these checks agrees.
 *
 * Rule 5 costs one scalar multiplication (about 0.9 ms in JavaScript), so its
 * result is cached per key content: sender keys come from the key directory and
 * repeat. Rules 1–4 are byte comparisons.
 *
 * @module
 */
import { ED25519_TORSION_SUBGROUP, ed25519 } from '@noble/curves/ed25519.js';
import { sha512 } from '@noble/hashes/sha2.js';

/** Why an Ed25519 public key is refused. */
export type Ed25519KeyProblem = 'length' | 'non_canonical' | 'small_order' | 'mixed_order';

/** Why an Ed25519 signature is refused before (or by) the equation. */
export type Ed25519SignatureProblem =
  'length' | 's_not_reduced' | 'r_non_canonical' | 'r_small_order' | `key_${Ed25519KeyProblem}`;

type EdPoint = ReturnType<typeof ed25519.Point.fromBytes>;

/** The prime order L of the Ed25519 base point. */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
/** L as 32 little-endian bytes, for a byte-wise `S < L`. */
const L_BYTES = Uint8Array.from({ length: 32 }, (_, i) => Number((L >> BigInt(8 * i)) & 0xffn));

const hex = (bytes: Uint8Array): string => {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
};

/** Canonical encodings of the 8 small-order points (all canonical in @noble's list). */
const SMALL_ORDER = new Set(ED25519_TORSION_SUBGROUP);

/** True when `s` (32 bytes, little-endian) is below L. */
function isReducedScalar(s: Uint8Array): boolean {
  for (let i = 31; i >= 0; i--) {
    if (s[i]! < L_BYTES[i]!) return true;
    if (s[i]! > L_BYTES[i]!) return false;
  }
  return false; // equal to L
}

/**
 * True when the 32 bytes are a canonical point encoding as far as bytes tell:
 * `y < p = 2^255 − 19`, and not `x = 0` with the sign bit set (the only points
 * with `x = 0` are `y = 1` and `y = p − 1`). Whether `y` is on the curve is
 * left to decoding.
 */
function isCanonicalEncoding(e: Uint8Array): boolean {
  const top = e[31]! & 0x7f;
  let allOnes = top === 0x7f;
  for (let i = 1; i < 31 && allOnes; i++) allOnes = e[i] === 0xff;
  if (allOnes && e[0]! >= 0xed) return false; // y ≥ p
  if ((e[31]! & 0x80) === 0) return true;
  // Sign bit set: refuse y = 1 (01 00…00) and y = p − 1 (ec ff…ff 7f), whose x is 0.
  let restZero = top === 0;
  for (let i = 1; i < 31 && restZero; i++) restZero = e[i] === 0;
  if (restZero && e[0] === 0x01) return false;
  let restOnes = top === 0x7f;
  for (let i = 1; i < 31 && restOnes; i++) restOnes = e[i] === 0xff;
  return !(restOnes && e[0] === 0xec);
}

interface KeyVerdict {
  readonly problem: Ed25519KeyProblem | undefined;
  readonly point: EdPoint | undefined;
}

const KEY_CACHE_MAX = 1024;
const keyCache = new Map<string, KeyVerdict>();

function judgeKey(publicKey: Uint8Array): KeyVerdict {
  if (!isCanonicalEncoding(publicKey)) return { problem: 'non_canonical', point: undefined };
  let point: EdPoint;
  try {
    point = ed25519.Point.fromBytes(publicKey, false);
  } catch {
    return { problem: 'non_canonical', point: undefined }; // not a curve point
  }
  if (point.isSmallOrder()) return { problem: 'small_order', point: undefined };
  if (!point.isTorsionFree()) return { problem: 'mixed_order', point: undefined };
  return { problem: undefined, point };
}

function keyVerdict(publicKey: Uint8Array): KeyVerdict {
  const id = hex(publicKey);
  let verdict = keyCache.get(id);
  if (verdict === undefined) {
    verdict = judgeKey(publicKey);
    if (keyCache.size >= KEY_CACHE_MAX) keyCache.delete(keyCache.keys().next().value!);
    keyCache.set(id, verdict);
  }
  return verdict;
}

/**
 * Why `publicKey` cannot be an Ed25519 signing key of this SDK, or `undefined`
 * when it can: 32 bytes, canonical, a curve point, not small-order, in the
 * prime-order subgroup. Cached per key content.
 *
 * @example
 * ```ts
 * ed25519KeyProblem(new Uint8Array(32)); // 'small_order' (x = ±√−1, y = 0)
 * ```
 */
export function ed25519KeyProblem(publicKey: Uint8Array): Ed25519KeyProblem | undefined {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32) return 'length';
  return keyVerdict(publicKey).problem;
}

/**
 * The checks every backend runs before its equation (rules 1–5 of the module
 * summary). Returns the first problem found, or `undefined` when the equation
 * decides.
 */
export function ed25519SignatureProblem(
  publicKey: Uint8Array,
  signature: Uint8Array,
): Ed25519SignatureProblem | undefined {
  if (publicKey.length !== 32 || signature.length !== 64) return 'length';
  if (!isReducedScalar(signature.subarray(32))) return 's_not_reduced';
  const r = signature.subarray(0, 32);
  if (!isCanonicalEncoding(r)) return 'r_non_canonical';
  if (SMALL_ORDER.has(hex(r))) return 'r_small_order';
  const key = ed25519KeyProblem(publicKey);
  return key === undefined ? undefined : `key_${key}`;
}

function scalarLE(bytes: Uint8Array): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]!);
  return n;
}

/**
 * The full rule in JavaScript (@noble/curves point operations): the pre-checks,
 * then the cofactorless equation `encode([S]B − [k]A) = R`. Used by the portable
 * backend where WebCrypto lacks Ed25519 or uses another equation.
 */
export function ed25519VerifyStrict(
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
): boolean {
  if (ed25519SignatureProblem(publicKey, signature) !== undefined) return false;
  const a = keyVerdict(publicKey).point!;
  const r = signature.subarray(0, 32);
  const digest = sha512.create().update(r).update(publicKey).update(message).digest();
  const k = scalarLE(digest) % L;
  const sB = ed25519.Point.BASE.multiplyUnsafe(scalarLE(signature.subarray(32)));
  const expected = sB.subtract(a.multiplyUnsafe(k)).toBytes();
  let diff = 0;
  for (let i = 0; i < 32; i++) diff |= expected[i]! ^ r[i]!;
  return diff === 0;
}
