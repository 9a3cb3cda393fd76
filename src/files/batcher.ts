/**
 * Gathering an upload's sealed pieces (a 64 KiB chunk's ciphertext and its
 * 16-byte tag, each a separate array) into 1 MiB buffers: the HTTP stack,
 * the socket and the server then see 16 times fewer, larger pieces (and no
 * 16-byte writes), for one memory copy of the ciphertext.
 *
 * @module
 */

/** Bytes per upload write. */
export const UPLOAD_BATCH_BYTES = 1_048_576;

/** Copies pieces into fixed-size batches; each full batch is a fresh buffer the caller owns. */
export class CiphertextBatcher {
  readonly #size: number;
  readonly #spare: number;
  #buffer: Uint8Array | undefined;
  #filled = 0;

  /**
   * @param spare - room kept after the last batch for {@link CiphertextBatcher.restWith} (e.g. a digest).
   * @param expected - total bytes expected, when known: a smaller body gets a smaller buffer.
   * @param size - bytes per batch.
   */
  constructor(spare = 0, expected?: number, size: number = UPLOAD_BATCH_BYTES) {
    this.#size = expected === undefined ? size : Math.max(1, Math.min(size, expected));
    this.#spare = spare;
  }

  /** Copies `pieces` in; returns the batches that filled up (usually none or one). */
  add(pieces: readonly Uint8Array[]): Uint8Array[] {
    const full: Uint8Array[] = [];
    for (const piece of pieces) {
      let offset = 0;
      while (offset < piece.length) {
        // Allocated when bytes arrive: no spare buffer after the last full batch.
        this.#buffer ??= this.#fresh();
        const n = Math.min(this.#size - this.#filled, piece.length - offset);
        this.#buffer.set(
          offset === 0 && n === piece.length ? piece : piece.subarray(offset, offset + n),
          this.#filled,
        );
        this.#filled += n;
        offset += n;
        if (this.#filled === this.#size) {
          full.push(this.#buffer.subarray(0, this.#size));
          this.#buffer = undefined;
          this.#filled = 0;
        }
      }
    }
    return full;
  }

  /** The bytes gathered since the last full batch (a view; valid until {@link CiphertextBatcher.restWith}). */
  rest(): Uint8Array {
    return this.#buffer?.subarray(0, this.#filled) ?? new Uint8Array(0);
  }

  /** The bytes gathered since the last full batch followed by `extra` (at most the spare room), without a second buffer. */
  restWith(extra: Uint8Array): Uint8Array {
    if (extra.length > this.#spare) throw new RangeError('extra bytes exceed the spare room');
    const buffer = this.#buffer ?? new Uint8Array(extra.length);
    buffer.set(extra, this.#filled);
    const out = buffer.subarray(0, this.#filled + extra.length);
    this.#buffer = undefined;
    this.#filled = 0;
    return out;
  }

  #fresh(): Uint8Array {
    return Buffer.allocUnsafe(this.#size + this.#spare);
  }
}
