/**
 * Splits an encrypted file's byte stream into its header and sealed chunks,
 * whatever the sizes of the pieces it arrives in. Pure framing: nothing is
 * decrypted here. A chunk is only known to be the last once the stream ends,
 * so every chunk is held back until the next byte (or the end) arrives.
 *
 * @module
 */
import { FileIntegrityError } from '../../core/errors/file-integrity-error.js';
import { CHUNK_TAG_BYTES, FILE_HEADER_BYTES, MAX_CHUNKS, parseFileHeader, type FileHeader } from './format.js';

/** One sealed chunk as framed: its index, whether it is the last, ciphertext with tag. */
export interface SealedChunk {
  readonly index: number;
  readonly last: boolean;
  readonly bytes: Uint8Array;
}

/** Incremental framer: `push` pieces, then `end`. */
export class ChunkReader {
  #header: FileHeader | undefined;
  #buffer: Uint8Array = new Uint8Array(0);
  #index = 0;
  #ended = false;

  /** The parsed header, once 16 bytes have arrived. */
  get header(): FileHeader | undefined {
    return this.#header;
  }

  /**
   * Adds bytes; returns the chunks now known to be complete and not last.
   *
   * @throws {@link FileIntegrityError} `header` for a bad header; `trailing` after `end`.
   */
  push(piece: Uint8Array): SealedChunk[] {
    if (this.#ended) throw new FileIntegrityError('trailing', 'Bytes arrived after the end of the file.');
    this.#buffer = this.#buffer.length === 0 ? piece : concat(this.#buffer, piece);
    const out: SealedChunk[] = [];
    if (this.#header === undefined) {
      if (this.#buffer.length < FILE_HEADER_BYTES) return out;
      this.#header = parseFileHeader(this.#buffer.subarray(0, FILE_HEADER_BYTES));
      this.#buffer = this.#buffer.subarray(FILE_HEADER_BYTES);
    }
    const segment = this.#header.chunkSize + CHUNK_TAG_BYTES;
    let offset = 0;
    // Strictly more than one segment: the segment is followed by bytes, so it is not the last.
    while (this.#buffer.length - offset > segment) {
      out.push(this.#take(this.#buffer.subarray(offset, offset + segment), false));
      offset += segment;
    }
    this.#buffer = offset === 0 ? this.#buffer : this.#buffer.slice(offset);
    return out;
  }

  /**
   * Ends the stream; returns the last chunk.
   *
   * @throws {@link FileIntegrityError} `header` or `truncated` when the stream ends early.
   */
  end(): SealedChunk {
    if (this.#ended) throw new FileIntegrityError('trailing', 'The file was already ended.');
    this.#ended = true;
    if (this.#header === undefined) {
      throw new FileIntegrityError('header', 'Not an encrypted file of format AMSF v1: short header.');
    }
    if (this.#buffer.length < CHUNK_TAG_BYTES) {
      throw new FileIntegrityError('truncated', 'The encrypted file ends before its last chunk.');
    }
    return this.#take(this.#buffer, true);
  }

  #take(bytes: Uint8Array, last: boolean): SealedChunk {
    if (this.#index >= MAX_CHUNKS) throw new FileIntegrityError('trailing', 'Too many chunks.');
    return { index: this.#index++, last, bytes };
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
