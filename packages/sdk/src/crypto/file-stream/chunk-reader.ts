/**
 * Splits an encrypted file's byte stream into its header and sealed chunks,
 * whatever the sizes of the pieces it arrives in. Pure framing: nothing is
 * decrypted here. A chunk is only known to be the last once the stream ends,
 * so every chunk is held back until the next byte (or the end) arrives.
 *
 * @module
 */
import { FileIntegrityError } from '../../core/errors/file-integrity-error.js';
import {
  CHUNK_TAG_BYTES,
  FILE_HEADER_BYTES,
  MAX_CHUNKS,
  parseFileHeader,
  type FileHeader,
} from './format.js';

/** One sealed chunk as framed: its index, whether it is the last, ciphertext with tag. */
export interface SealedChunk {
  readonly index: number;
  readonly last: boolean;
  /** Ciphertext followed by the tag, in one array (assembled on first access when it arrived in several pieces). */
  readonly bytes: Uint8Array;
  /** The same bytes in the pieces they arrived in (views, no copy); at least one piece. */
  readonly pieces: readonly Uint8Array[];
}

/** Incremental framer: `push` pieces, then `end`. */
export class ChunkReader {
  #header: FileHeader | undefined;
  readonly #queue = new ByteQueue();
  #index = 0;
  #ended = false;

  /** The parsed header, once 16 bytes have arrived. */
  get header(): FileHeader | undefined {
    return this.#header;
  }

  /**
   * Adds bytes; returns the chunks now known to be complete and not last.
   *
   * @throws {@link index!FileIntegrityError | FileIntegrityError} `header` for a bad header; `trailing` after `end`.
   */
  push(piece: Uint8Array): SealedChunk[] {
    if (this.#ended)
      throw new FileIntegrityError({
        failure: 'trailing',
        message: 'Bytes arrived after the end of the file.',
      });
    this.#queue.push(piece);
    const out: SealedChunk[] = [];
    if (this.#header === undefined) {
      if (this.#queue.length < FILE_HEADER_BYTES) return out;
      this.#header = parseFileHeader(this.#queue.take(FILE_HEADER_BYTES));
    }
    const segment = this.#header.chunkSize + CHUNK_TAG_BYTES;
    // Strictly more than one segment: the segment is followed by bytes, so it is not the last.
    while (this.#queue.length > segment) out.push(this.#take(this.#queue.takePieces(segment), false));
    return out;
  }

  /**
   * Ends the stream; returns the last chunk.
   *
   * @throws {@link index!FileIntegrityError | FileIntegrityError} `header` or `truncated` when the stream ends early.
   */
  end(): SealedChunk {
    if (this.#ended)
      throw new FileIntegrityError({ failure: 'trailing', message: 'The file was already ended.' });
    this.#ended = true;
    if (this.#header === undefined) {
      throw new FileIntegrityError({
        failure: 'header',
        message: 'Not an encrypted file of format AMSF v1: short header.',
      });
    }
    if (this.#queue.length < CHUNK_TAG_BYTES) {
      throw new FileIntegrityError({
        failure: 'truncated',
        message: 'The encrypted file ends before its last chunk.',
      });
    }
    return this.#take(this.#queue.takePieces(this.#queue.length), true);
  }

  #take(pieces: Uint8Array[], last: boolean): SealedChunk {
    if (this.#index >= MAX_CHUNKS)
      throw new FileIntegrityError({ failure: 'trailing', message: 'Too many chunks.' });
    let joined: Uint8Array | undefined = pieces.length === 1 ? pieces[0] : undefined;
    return {
      index: this.#index++,
      last,
      pieces,
      get bytes(): Uint8Array {
        return (joined ??= concatPieces(pieces));
      },
    };
  }
}

function concatPieces(pieces: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const piece of pieces) n += piece.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

/** A FIFO of byte pieces: `take(n)` copies only when `n` bytes span several pieces; `takePieces(n)` never copies. */
class ByteQueue {
  readonly #pieces: Uint8Array[] = [];
  #head = 0;
  #length = 0;

  get length(): number {
    return this.#length;
  }

  push(piece: Uint8Array): void {
    if (piece.length === 0) return;
    this.#pieces.push(piece);
    this.#length += piece.length;
  }

  take(n: number): Uint8Array {
    this.#length -= n;
    const first = this.#pieces[this.#head];
    if (first !== undefined && first.length >= n) {
      this.#advance(first, n);
      return first.subarray(0, n);
    }
    const out = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const piece = this.#pieces[this.#head]!;
      const k = Math.min(piece.length, n - at);
      out.set(piece.subarray(0, k), at);
      at += k;
      this.#advance(piece, k);
    }
    return out;
  }

  /** The next `n` bytes as views of the pieces they span (at least one piece, possibly empty). */
  takePieces(n: number): Uint8Array[] {
    this.#length -= n;
    const out: Uint8Array[] = [];
    let at = 0;
    while (at < n) {
      const piece = this.#pieces[this.#head]!;
      const k = Math.min(piece.length, n - at);
      out.push(k === piece.length ? piece : piece.subarray(0, k));
      at += k;
      this.#advance(piece, k);
    }
    if (out.length === 0) out.push(new Uint8Array(0));
    return out;
  }

  #advance(piece: Uint8Array, k: number): void {
    if (k === piece.length) {
      this.#pieces[this.#head] = new Uint8Array(0);
      this.#head += 1;
      if (this.#head > 64) {
        this.#pieces.splice(0, this.#head);
        this.#head = 0;
      }
    } else {
      this.#pieces[this.#head] = piece.subarray(k);
    }
  }
}
