/**
 * AES-256-GCM of one chunk and SHA-256 on node:crypto (synchronous, so a
 * 64 KiB chunk costs no promise round trip).
 *
 * @module
 */
import type * as NodeCrypto from 'node:crypto';
import type { Hash } from 'node:crypto';
import { ConfigurationError } from '../../core/errors/configuration-error.js';
import { FileIntegrityError } from '../../core/errors/file-integrity-error.js';
import { CHUNK_TAG_BYTES } from './format.js';

let cached: typeof NodeCrypto | undefined;

/**
 * node:crypto, reached through `process.getBuiltinModule` on first use (no
 * static import, so `./crypto` still bundles for Workers).
 *
 * @throws {@link ConfigurationError} on a runtime without node:crypto.
 */
function nodeCrypto(): typeof NodeCrypto {
  if (cached !== undefined) return cached;
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  let mod: typeof NodeCrypto | undefined;
  try {
    mod = proc?.getBuiltinModule?.('node:crypto') as typeof NodeCrypto | undefined;
  } catch {
    mod = undefined;
  }
  if (mod === undefined) {
    throw new ConfigurationError({
      option: 'files',
      message: 'Encrypted files need node:crypto (Node 20.16+, Bun, Deno); this runtime has none.',
    });
  }
  return (cached = mod);
}

function joined(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** Seals one chunk: ciphertext followed by the 16-byte tag, as two pieces (no copy of the body). */
export function sealChunkParts(
  key: Uint8Array,
  nonce: Uint8Array,
  aad: Uint8Array,
  plaintext: Uint8Array,
): [Uint8Array, Uint8Array] {
  const cipher = nodeCrypto().createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(aad);
  const body = cipher.update(plaintext);
  const tail = cipher.final(); // empty for GCM
  return [tail.length === 0 ? body : joined(body, tail), cipher.getAuthTag()];
}

/** Seals one chunk: ciphertext followed by the 16-byte tag, in one array. */
export function sealChunk(
  key: Uint8Array,
  nonce: Uint8Array,
  aad: Uint8Array,
  plaintext: Uint8Array,
): Uint8Array {
  const [body, tag] = sealChunkParts(key, nonce, aad, plaintext);
  const out = new Uint8Array(body.length + CHUNK_TAG_BYTES);
  out.set(body, 0);
  out.set(tag, body.length);
  return out;
}

/** An AES-256-GCM decipher of one chunk, its AAD and expected tag set. */
function chunkDecipher(key: Uint8Array, nonce: Uint8Array, aad: Uint8Array, tag: Uint8Array) {
  const decipher = nodeCrypto().createDecipheriv('aes-256-gcm', key, nonce);
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  return decipher;
}

/** The error of a chunk whose tag does not verify. */
function chunkFailure(cause: unknown): FileIntegrityError {
  return new FileIntegrityError({
    failure: 'chunk',
    message:
      'A chunk of the encrypted file does not authenticate (modified, reordered, truncated or from another file).',
    cause,
  });
}

/**
 * Opens one chunk.
 *
 * @throws {@link index!FileIntegrityError | FileIntegrityError} `chunk` when the tag does not verify.
 */
export function openChunk(
  key: Uint8Array,
  nonce: Uint8Array,
  aad: Uint8Array,
  sealed: Uint8Array,
): Uint8Array {
  const split = sealed.length - CHUNK_TAG_BYTES;
  try {
    const decipher = chunkDecipher(key, nonce, aad, sealed.subarray(split));
    const body = decipher.update(sealed.subarray(0, split));
    const tail = decipher.final();
    return tail.length === 0 ? body : joined(body, tail);
  } catch (cause) {
    throw chunkFailure(cause);
  }
}

/** The last `n` bytes of `pieces` (views when they lie in one piece, else a copy of `n` bytes). */
function lastBytes(pieces: readonly Uint8Array[], n: number): Uint8Array {
  const final = pieces[pieces.length - 1]!;
  if (final.length >= n) return final.subarray(final.length - n);
  const out = new Uint8Array(n);
  let want = n;
  for (let i = pieces.length - 1; i >= 0 && want > 0; i--) {
    const piece = pieces[i]!;
    const k = Math.min(piece.length, want);
    out.set(piece.subarray(piece.length - k), want - k);
    want -= k;
  }
  return out;
}

/**
 * Opens one chunk given as the pieces it arrived in (ciphertext then tag,
 * split anywhere): each piece goes through the cipher as it is, without
 * assembling the chunk first. The plaintext pieces are returned only once
 * the tag verified.
 *
 * @throws {@link index!FileIntegrityError | FileIntegrityError} `chunk` when the tag does not verify (or the chunk is shorter than a tag).
 */
export function openChunkPieces(
  key: Uint8Array,
  nonce: Uint8Array,
  aad: Uint8Array,
  pieces: readonly Uint8Array[],
): Uint8Array[] {
  let size = 0;
  for (const piece of pieces) size += piece.length;
  if (pieces.length === 1 || size < CHUNK_TAG_BYTES) {
    return [openChunk(key, nonce, aad, pieces.length === 1 ? pieces[0]! : joinedAll(pieces, size))];
  }
  try {
    const decipher = chunkDecipher(key, nonce, aad, lastBytes(pieces, CHUNK_TAG_BYTES));
    const out: Uint8Array[] = [];
    let left = size - CHUNK_TAG_BYTES;
    for (const piece of pieces) {
      if (left === 0) break;
      const k = Math.min(piece.length, left);
      left -= k;
      const plain = decipher.update(k === piece.length ? piece : piece.subarray(0, k));
      if (plain.length > 0) out.push(plain);
    }
    const tail = decipher.final();
    if (tail.length > 0) out.push(tail);
    return out.length === 0 ? [new Uint8Array(0)] : out;
  } catch (cause) {
    throw chunkFailure(cause);
  }
}

function joinedAll(pieces: readonly Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

/** A fresh SHA-256. */
export function createSha256(): Hash {
  return nodeCrypto().createHash('sha256');
}

/** `n` random bytes from the platform CSPRNG. */
export function randomBytesOf(n: number): Uint8Array {
  return new Uint8Array(nodeCrypto().randomBytes(n));
}
