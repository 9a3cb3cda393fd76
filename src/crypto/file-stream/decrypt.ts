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
  if (key.length !== FILE_KEY_BYTES) throw new FileIntegrityError('header', 'The file key must be 32 bytes.');
  const reader = new ChunkReader();
  let total = 0;
  const open = (chunk: SealedChunk): Uint8Array[] => {
    const header = reader.header!;
    if (options.chunkSize !== undefined && header.chunkSize !== options.chunkSize) {
      throw new FileIntegrityError('header', 'The chunk size differs from the declared one.');
    }
    const plain = openChunkPieces(
      key,
      chunkNonce(header.noncePrefix, chunk.index, chunk.last),
      header.bytes,
      chunk.pieces,
    );
    for (const piece of plain) total += piece.length;
    if (options.size !== undefined && total > options.size) {
      throw new FileIntegrityError('size', 'The file is larger than its declared size.');
    }
    return plain;
  };
  for await (const piece of source) {
    for (const chunk of reader.push(piece)) yield* open(chunk);
  }
  const last = open(reader.end());
  if (options.size !== undefined && total !== options.size) {
    throw new FileIntegrityError('size', 'The file size differs from its declared size.');
  }
  yield* last;
}
