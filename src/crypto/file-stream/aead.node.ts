/**
 * AES-256-GCM of one chunk and SHA-256 on node:crypto (synchronous, so a
 * 64 KiB chunk costs no promise round trip).
 *
 * @module
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, type Hash } from 'node:crypto';
import { FileIntegrityError } from '../../core/errors/file-integrity-error.js';
import { CHUNK_TAG_BYTES } from './format.js';

/** Seals one chunk: ciphertext followed by the 16-byte tag, as two pieces (no copy of the body). */
export function sealChunkParts(
  key: Uint8Array,
  nonce: Uint8Array,
  aad: Uint8Array,
  plaintext: Uint8Array,
): [Uint8Array, Uint8Array] {
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(aad);
  const body = cipher.update(plaintext);
  const tail = cipher.final(); // empty for GCM
  return [tail.length === 0 ? body : Buffer.concat([body, tail]), cipher.getAuthTag()];
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
    const decipher = createDecipheriv('aes-256-gcm', key, nonce);
    decipher.setAAD(aad);
    decipher.setAuthTag(sealed.subarray(split));
    const body = decipher.update(sealed.subarray(0, split));
    const tail = decipher.final();
    return tail.length === 0 ? body : Buffer.concat([body, tail]);
  } catch (cause) {
    throw new FileIntegrityError(
      'chunk',
      'A chunk of the encrypted file does not authenticate (modified, reordered, truncated or from another file).',
      cause,
    );
  }
}

/** A fresh SHA-256. */
export function createSha256(): Hash {
  return createHash('sha256');
}

/** `n` random bytes from the platform CSPRNG. */
export function randomBytesOf(n: number): Uint8Array {
  return new Uint8Array(randomBytes(n));
}
