/**
 * The byte layout of an encrypted file (format `AMSF` version 1), shared by
 * the encryptor, the decryptor and the server's size cap. See docs/files.md,
 * "Construction".
 *
 * ```text
 * header  = "AMSF" | 0x01 | chunk_size (u32 BE) | nonce_prefix (7 bytes)    16 bytes
 * chunk_i = AES-256-GCM(key, nonce_i, plaintext_i, aad = header)            |plaintext_i| + 16
 * nonce_i = nonce_prefix | i (u32 BE) | last (0x00, or 0x01 for the final chunk)
 * ```
 *
 * Every chunk but the last holds exactly `chunk_size` plaintext bytes; the
 * last holds 0 to `chunk_size` (an empty file is one empty last chunk).
 *
 * @module
 */
import { FileIntegrityError } from '../../core/errors/file-integrity-error.js';

/** The four magic bytes `AMSF`. */
export const FILE_MAGIC = Uint8Array.of(0x41, 0x4d, 0x53, 0x46);
/** The format version this SDK writes and reads. */
export const FILE_FORMAT_VERSION = 1;
/** Header length in bytes. */
export const FILE_HEADER_BYTES = 16;
/** Length of the per-file random nonce prefix. */
export const NONCE_PREFIX_BYTES = 7;
/** AES-GCM tag length appended to every chunk. */
export const CHUNK_TAG_BYTES = 16;
/** Length of a file key (AES-256). */
export const FILE_KEY_BYTES = 32;
/** Default plaintext bytes per chunk: 64 KiB. */
export const DEFAULT_CHUNK_SIZE = 65_536;
/** Smallest chunk size a reader accepts (bounds the overhead at 1/1024). */
export const MIN_CHUNK_SIZE = 16_384;
/** Largest chunk size a reader accepts (bounds the memory of one chunk). */
export const MAX_CHUNK_SIZE = 4 * 1_048_576;
/** Chunks one file may have (the counter is 32 bits). */
export const MAX_CHUNKS = 2 ** 32 - 1;

/** The parsed header of an encrypted file. */
export interface FileHeader {
  /** Plaintext bytes per chunk. */
  readonly chunkSize: number;
  /** The 7-byte nonce prefix. */
  readonly noncePrefix: Uint8Array;
  /** The 16 header bytes as written (the AAD of every chunk). */
  readonly bytes: Uint8Array;
}

/** True when `n` is an allowed chunk size. */
export function isValidChunkSize(n: number): boolean {
  return Number.isSafeInteger(n) && n >= MIN_CHUNK_SIZE && n <= MAX_CHUNK_SIZE;
}

/** Encodes a header. Throws RangeError for a bad chunk size or prefix (programming errors). */
export function encodeFileHeader(chunkSize: number, noncePrefix: Uint8Array): Uint8Array {
  if (!isValidChunkSize(chunkSize))
    throw new RangeError(`chunk size must be ${MIN_CHUNK_SIZE} to ${MAX_CHUNK_SIZE}`);
  if (noncePrefix.length !== NONCE_PREFIX_BYTES) throw new RangeError('nonce prefix must be 7 bytes');
  const out = new Uint8Array(FILE_HEADER_BYTES);
  out.set(FILE_MAGIC, 0);
  out[4] = FILE_FORMAT_VERSION;
  new DataView(out.buffer).setUint32(5, chunkSize, false);
  out.set(noncePrefix, 9);
  return out;
}

/**
 * Parses the 16 header bytes.
 *
 * @throws {@link index!FileIntegrityError | FileIntegrityError} `header` for a wrong length, magic, version or chunk size.
 */
export function parseFileHeader(bytes: Uint8Array): FileHeader {
  const bad = (what: string): FileIntegrityError =>
    new FileIntegrityError({
      failure: 'header',
      message: `Not an encrypted file of format AMSF v1: ${what}.`,
    });
  if (bytes.length !== FILE_HEADER_BYTES) throw bad('short header');
  for (let i = 0; i < FILE_MAGIC.length; i++) if (bytes[i] !== FILE_MAGIC[i]) throw bad('wrong magic');
  if (bytes[4] !== FILE_FORMAT_VERSION) throw bad('unsupported version');
  const chunkSize = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(5, false);
  if (!isValidChunkSize(chunkSize)) throw bad('chunk size out of range');
  return { chunkSize, noncePrefix: bytes.slice(9, 16), bytes: bytes.slice() };
}

/** The 12-byte nonce of chunk `index`. */
export function chunkNonce(noncePrefix: Uint8Array, index: number, last: boolean): Uint8Array {
  const nonce = new Uint8Array(12);
  nonce.set(noncePrefix, 0);
  new DataView(nonce.buffer).setUint32(NONCE_PREFIX_BYTES, index, false);
  nonce[11] = last ? 1 : 0;
  return nonce;
}

/** Number of chunks of a plaintext of `size` bytes (at least one). */
export function chunkCount(size: number, chunkSize: number): number {
  return size === 0 ? 1 : Math.ceil(size / chunkSize);
}

/** Ciphertext length of a plaintext of `size` bytes: header, plaintext, one tag per chunk. */
export function ciphertextSize(size: number, chunkSize: number = DEFAULT_CHUNK_SIZE): number {
  return FILE_HEADER_BYTES + size + CHUNK_TAG_BYTES * chunkCount(size, chunkSize);
}

/** The largest ciphertext of a plaintext of at most `maxPlaintext` bytes under any allowed chunk size. */
export function maxCiphertextSize(maxPlaintext: number): number {
  return ciphertextSize(maxPlaintext, MIN_CHUNK_SIZE);
}
