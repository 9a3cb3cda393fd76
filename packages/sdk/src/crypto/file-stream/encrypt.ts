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
 * Synchronous AMSF encryptor: `push` plaintext pieces of any size, then
 * `end`; each returns the sealed pieces now ready (the header first, then a
 * chunk's ciphertext and its tag as two pieces). A pushed piece is consumed
 * before `push` returns (sealed in place or copied), so the caller may reuse
 * its buffer. No promise per piece: the upload loop calls it directly.
 */
export class FileEncryptor {
  readonly #key: Uint8Array;
  readonly #noncePrefix: Uint8Array;
  readonly #chunkSize: number;
  readonly #header: Uint8Array;
  readonly #max: number;
  readonly #buffer: Uint8Array;
  #headerSent = false;
  #filled = 0;
  #index = 0;
  #total = 0;
  #ended = false;

  /**
   * @throws RangeError when the key is not 32 bytes.
   */
  constructor(params: FileEncryptionParams, options: Pick<EncryptFileStreamOptions, 'maxBytes'> = {}) {
    if (params.key.length !== FILE_KEY_BYTES) throw new RangeError('file key must be 32 bytes');
    this.#key = params.key;
    this.#noncePrefix = params.noncePrefix;
    this.#chunkSize = params.chunkSize;
    this.#header = encodeFileHeader(params.chunkSize, params.noncePrefix);
    this.#max = options.maxBytes ?? Number.POSITIVE_INFINITY;
    this.#buffer = new Uint8Array(params.chunkSize);
  }

  /** Plaintext bytes pushed so far. */
  get plaintextSize(): number {
    return this.#total;
  }

  /**
   * Adds plaintext; returns the sealed pieces now complete (a chunk is sealed
   * once more plaintext follows it, since the last one is flagged).
   *
   * @throws {@link index!ValidationError | ValidationError} (reason `file_too_large`) once the plaintext exceeds `maxBytes`.
   */
  push(piece: Uint8Array): Uint8Array[] {
    if (this.#ended) throw new RangeError('the encryptor has ended');
    const out: Uint8Array[] = [];
    if (!this.#headerSent) {
      this.#headerSent = true;
      out.push(this.#header);
    }
    this.#total += piece.length;
    if (this.#total > this.#max) {
      throw new ValidationError({
        message: `The file is larger than ${this.#max} bytes.`,
        params: { reason: 'file_too_large', max_bytes: this.#max },
      });
    }
    const chunkSize = this.#chunkSize;
    let offset = 0;
    while (offset < piece.length) {
      if (this.#filled === chunkSize) {
        // More plaintext follows, so the full buffer is not the last chunk.
        this.#seal(this.#buffer, false, out);
        this.#filled = 0;
      }
      if (this.#filled === 0 && piece.length - offset > chunkSize) {
        // A whole chunk with more after it in this piece: sealed in place, without a copy.
        this.#seal(piece.subarray(offset, offset + chunkSize), false, out);
        offset += chunkSize;
        continue;
      }
      const n = Math.min(chunkSize - this.#filled, piece.length - offset);
      this.#buffer.set(piece.subarray(offset, offset + n), this.#filled);
      this.#filled += n;
      offset += n;
    }
    return out;
  }

  /** Seals the last chunk (possibly empty); returns the remaining pieces. */
  end(): Uint8Array[] {
    if (this.#ended) throw new RangeError('the encryptor has ended');
    this.#ended = true;
    const out: Uint8Array[] = [];
    if (!this.#headerSent) {
      this.#headerSent = true;
      out.push(this.#header);
    }
    this.#seal(this.#buffer.subarray(0, this.#filled), true, out);
    return out;
  }

  #seal(plaintext: Uint8Array, last: boolean, out: Uint8Array[]): void {
    const [body, tag] = sealChunkParts(
      this.#key,
      chunkNonce(this.#noncePrefix, this.#index++, last),
      this.#header,
      plaintext,
    );
    out.push(body, tag);
  }
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
  const encryptor = new FileEncryptor(params, options);
  for await (const piece of source) yield* encryptor.push(piece);
  const last = encryptor.end();
  options.onPlaintextSize?.(encryptor.plaintextSize);
  yield* last;
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
