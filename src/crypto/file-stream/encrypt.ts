/**
 * Streaming encryption of a file (format `AMSF` v1, the STREAM construction
 * over AES-256-GCM): plaintext pieces of any size in, the header then one
 * sealed chunk at a time out. At most one chunk of plaintext is held.
 *
 * @module
 */
import { ValidationError } from '../../core/errors/validation-error.js';
import { randomBytesOf, sealChunkParts } from './aead.node.js';
import {
  chunkNonce,
  DEFAULT_CHUNK_SIZE,
  encodeFileHeader,
  FILE_KEY_BYTES,
  isValidChunkSize,
  MAX_CHUNK_SIZE,
  MIN_CHUNK_SIZE,
  NONCE_PREFIX_BYTES,
} from './format.js';

/** The secrets and parameters of one encrypted file. */
export interface FileEncryptionParams {
  /** 32-byte AES-256 key, fresh per file. */
  readonly key: Uint8Array;
  /** 7-byte nonce prefix, fresh per file. */
  readonly noncePrefix: Uint8Array;
  /** Plaintext bytes per chunk. @defaultValue `65536` */
  readonly chunkSize: number;
}

/** Fresh random parameters for one file. */
export function createFileEncryptionParams(chunkSize: number = DEFAULT_CHUNK_SIZE): FileEncryptionParams {
  if (!isValidChunkSize(chunkSize)) {
    throw new ValidationError({
      message: `chunkSize must be an integer from ${MIN_CHUNK_SIZE} to ${MAX_CHUNK_SIZE}.`,
      params: { min: MIN_CHUNK_SIZE, max: MAX_CHUNK_SIZE },
    });
  }
  return { key: randomBytesOf(FILE_KEY_BYTES), noncePrefix: randomBytesOf(NONCE_PREFIX_BYTES), chunkSize };
}

/** Options of {@link encryptFileStream}. */
export interface EncryptFileStreamOptions {
  /** Refuse a plaintext above this many bytes (ValidationError `file_too_large`). */
  readonly maxBytes?: number;
  /** Called with the plaintext size once the source ended. */
  readonly onPlaintextSize?: (size: number) => void;
}

/**
 * Encrypts `source` piece by piece.
 *
 * @throws {@link index!ValidationError | ValidationError} (reason `file_too_large`) as soon as the plaintext exceeds `maxBytes`.
 * @example
 * ```ts
 * const params = createFileEncryptionParams();
 * for await (const piece of encryptFileStream(source, params)) sink.write(piece);
 * ```
 */
export async function* encryptFileStream(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  params: FileEncryptionParams,
  options: EncryptFileStreamOptions = {},
): AsyncGenerator<Uint8Array, void, undefined> {
  const { key, noncePrefix, chunkSize } = params;
  const header = encodeFileHeader(chunkSize, noncePrefix);
  if (key.length !== FILE_KEY_BYTES) throw new RangeError('file key must be 32 bytes');
  yield header;
  const max = options.maxBytes ?? Number.POSITIVE_INFINITY;
  const buffer = new Uint8Array(chunkSize);
  let filled = 0;
  let index = 0;
  let total = 0;
  for await (const piece of source) {
    total += piece.length;
    if (total > max) {
      throw new ValidationError({
        message: `The file is larger than ${max} bytes.`,
        params: { reason: 'file_too_large', max_bytes: max },
      });
    }
    let offset = 0;
    while (offset < piece.length) {
      if (filled === chunkSize) {
        // More plaintext follows, so the full buffer is not the last chunk.
        yield* sealChunkParts(key, chunkNonce(noncePrefix, index++, false), header, buffer);
        filled = 0;
      }
      if (filled === 0 && piece.length - offset > chunkSize) {
        // A whole chunk with more after it in this piece: sealed in place, without a copy.
        yield* sealChunkParts(
          key,
          chunkNonce(noncePrefix, index++, false),
          header,
          piece.subarray(offset, offset + chunkSize),
        );
        offset += chunkSize;
        continue;
      }
      const n = Math.min(chunkSize - filled, piece.length - offset);
      buffer.set(piece.subarray(offset, offset + n), filled);
      filled += n;
      offset += n;
    }
  }
  options.onPlaintextSize?.(total);
  yield* sealChunkParts(key, chunkNonce(noncePrefix, index, true), header, buffer.subarray(0, filled));
}

/** Encrypts bytes in one go (tests, test vectors, small files). */
export async function encryptFileBytes(
  plaintext: Uint8Array,
  params: FileEncryptionParams,
): Promise<Uint8Array> {
  const pieces: Uint8Array[] = [];
  for await (const piece of encryptFileStream([plaintext], params)) pieces.push(piece);
  return Buffer.concat(pieces);
}
