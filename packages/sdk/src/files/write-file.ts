/**
 * Writing a download's plaintext to a file with few system calls and little
 * garbage: pieces are copied into one of two reused 1 MiB buffers; a full
 * buffer is written with one `write` while the other fills. The decrypted
 * pieces are thus dropped as soon as they are copied (they die young instead
 * of being kept until their batch is on disk), and memory stays at two
 * buffers whatever the file's size. The producer adds the pieces of each
 * network read synchronously and waits only when a buffer is due while the
 * other is still being written.
 *
 * @module
 */
import { open, type FileHandle } from 'node:fs/promises';

/** Bytes gathered before a batch is written. */
export const WRITE_BATCH_BYTES = 1_048_576;

/** Gathers pieces into two alternating buffers and writes them behind the producer. */
export class BatchWriter {
  readonly #handle: FileHandle;
  #filling = new Uint8Array(WRITE_BATCH_BYTES);
  #spare = new Uint8Array(WRITE_BATCH_BYTES);
  #filled = 0;
  #inFlight: Promise<unknown> | undefined;

  /** @internal */
  constructor(handle: FileHandle) {
    this.#handle = handle;
  }

  /**
   * Copies `pieces` in (the caller may reuse them once this returns or its
   * promise settles). Returns a promise only when the caller must wait (a
   * buffer filled up, so it is handed to the disk once the other one is
   * written); otherwise undefined.
   */
  add(pieces: readonly Uint8Array[]): Promise<void> | undefined {
    let size = 0;
    for (const piece of pieces) size += piece.length;
    if (this.#filled + size >= WRITE_BATCH_BYTES) return this.#addFilling(pieces);
    for (const piece of pieces) {
      this.#filling.set(piece, this.#filled);
      this.#filled += piece.length;
    }
    return undefined;
  }

  /** Writes what is gathered and waits for every write. */
  async finish(): Promise<void> {
    await this.#flush();
    const last = this.#inFlight;
    this.#inFlight = undefined;
    await last;
  }

  /** Lets a write in flight settle (after a failure), ignoring its outcome. */
  async settle(): Promise<void> {
    await this.#inFlight?.catch(() => undefined);
  }

  async #addFilling(pieces: readonly Uint8Array[]): Promise<void> {
    for (const piece of pieces) {
      let offset = 0;
      while (offset < piece.length) {
        const n = Math.min(WRITE_BATCH_BYTES - this.#filled, piece.length - offset);
        this.#filling.set(piece.subarray(offset, offset + n), this.#filled);
        this.#filled += n;
        offset += n;
        if (this.#filled === WRITE_BATCH_BYTES) await this.#flush();
      }
    }
  }

  /** Waits for the write in flight (freeing the spare buffer), starts writing the full one, swaps. */
  async #flush(): Promise<void> {
    if (this.#inFlight !== undefined) await this.#inFlight;
    this.#inFlight = undefined;
    if (this.#filled === 0) return;
    const write = this.#writeAll(this.#filling.subarray(0, this.#filled));
    // Marked handled now; the failure is rethrown where it is awaited.
    write.catch(() => undefined);
    this.#inFlight = write;
    [this.#filling, this.#spare] = [this.#spare, this.#filling];
    this.#filled = 0;
  }

  async #writeAll(bytes: Uint8Array): Promise<void> {
    let at = 0;
    while (at < bytes.length) {
      const { bytesWritten } = await this.#handle.write(bytes, at, bytes.length - at, null);
      at += bytesWritten;
    }
  }
}

/**
 * Creates (or truncates) the file at `path`, lets `produce` add pieces to
 * it, then writes the rest; closes the file in every case.
 */
export async function writeBatchesToFile(
  path: string,
  produce: (writer: BatchWriter) => Promise<void>,
): Promise<void> {
  const handle = await open(path, 'w');
  const writer = new BatchWriter(handle);
  try {
    await produce(writer);
    await writer.finish();
  } finally {
    // A failed producer leaves a write in flight: let it settle before closing.
    await writer.settle();
    await handle.close();
  }
}
