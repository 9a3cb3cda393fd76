/**
 * Streaming decryption of a file (format `AMSF` v1): ciphertext pieces of
 * any size in, verified plaintext one chunk at a time out (a chunk's
 * plaintext in as many pieces as its ciphertext arrived in: no piece is
 * copied to assemble a chunk). A chunk's plaintext is only released after
 * its tag verified; the end of the stream
 * is only accepted after a chunk flagged last, so truncation, reordering,
 * modification and chunks of another file all fail with
 * {@link index!FileIntegrityError | FileIntegrityError}.
 *
 * @module
 */
import { FileIntegrityError } from '../../core/errors/file-integrity-error.js';
import { openChunkPieces } from './aead.node.js';
import { ChunkReader, type SealedChunk } from './chunk-reader.js';
import { chunkNonce, FILE_KEY_BYTES } from './format.js';

/** Options of {@link decryptFileStream}. */
export interface DecryptFileStreamOptions {
  /** The plaintext chunk size the sender declared; a different header fails `header`. */
  readonly chunkSize?: number;
  /** The plaintext size the sender declared; a different size fails `size`. */
  readonly size?: number;
}

/**
 * Synchronous AMSF decryptor: `push` ciphertext pieces of any size, then
 * `end`; each returns the verified plaintext now available (a chunk's
 * plaintext in as many pieces as its ciphertext arrived in). No promise per
 * piece: the download loop calls it directly. The pushed pieces are kept
 * (as views) until their chunk is complete, so do not reuse their buffers.
 */
export class FileDecryptor {
  readonly #key: Uint8Array;
  readonly #options: DecryptFileStreamOptions;
  readonly #reader = new ChunkReader();
  #total = 0;

  /**
   * @throws {@link index!FileIntegrityError | FileIntegrityError} `header` when the key is not 32 bytes.
   */
  constructor(key: Uint8Array, options: DecryptFileStreamOptions = {}) {
    if (key.length !== FILE_KEY_BYTES)
      throw new FileIntegrityError({ failure: 'header', message: 'The file key must be 32 bytes.' });
    this.#key = key;
    this.#options = options;
  }

  /**
   * Adds ciphertext; returns the plaintext of the chunks now complete and verified (never the last).
   *
   * @throws {@link index!FileIntegrityError | FileIntegrityError} on any failed check (header, chunk, size).
   */
  push(piece: Uint8Array): Uint8Array[] {
    const chunks = this.#reader.push(piece);
    if (chunks.length === 0) return [];
    if (chunks.length === 1) return this.#open(chunks[0]!);
    const out: Uint8Array[] = [];
    for (const chunk of chunks) for (const plain of this.#open(chunk)) out.push(plain);
    return out;
  }

  /**
   * Ends the ciphertext; returns the last chunk's plaintext once it and the total size verified.
   *
   * @throws {@link index!FileIntegrityError | FileIntegrityError} on any failed check (header, chunk, truncated, trailing, size).
   */
  end(): Uint8Array[] {
    const last = this.#open(this.#reader.end());
    if (this.#options.size !== undefined && this.#total !== this.#options.size) {
      throw new FileIntegrityError({
        failure: 'size',
        message: 'The file size differs from its declared size.',
      });
    }
    return last;
  }

  #open(chunk: SealedChunk): Uint8Array[] {
    const header = this.#reader.header!;
    const { chunkSize, size } = this.#options;
    if (chunkSize !== undefined && header.chunkSize !== chunkSize) {
      throw new FileIntegrityError({
        failure: 'header',
        message: 'The chunk size differs from the declared one.',
      });
    }
    const plain = openChunkPieces(
      this.#key,
      chunkNonce(header.noncePrefix, chunk.index, chunk.last),
      header.bytes,
      chunk.pieces,
    );
    for (const piece of plain) this.#total += piece.length;
    if (size !== undefined && this.#total > size) {
      throw new FileIntegrityError({
        failure: 'size',
        message: 'The file is larger than its declared size.',
      });
    }
    return plain;
  }
}

/**
 * Decrypts `source` under `key`.
 *
 * @throws {@link index!FileIntegrityError | FileIntegrityError} on any failed check (header, chunk, truncated, trailing, size).
 * @example
 * ```ts
 * for await (const piece of decryptFileStream(ciphertext, key)) sink.write(piece);
 * ```
 */
export async function* decryptFileStream(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  key: Uint8Array,
  options: DecryptFileStreamOptions = {},
): AsyncGenerator<Uint8Array, void, undefined> {
  const decryptor = new FileDecryptor(key, options);
  for await (const piece of source) yield* decryptor.push(piece);
  yield* decryptor.end();
}
