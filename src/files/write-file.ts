/**
 * Writing a download's plaintext to a file with few system calls: pieces
 * are gathered into batches of about 1 MiB, each written with one `writev`
 * while the next batch fills (at most two batches held, so memory stays
 * bounded whatever the file's size). The producer adds the pieces of each
 * network read synchronously and waits only when a batch is due while the
 * previous write is still in flight.
 *
 * @module
 */
import { open, type FileHandle } from 'node:fs/promises';

/** Bytes gathered before a batch is written. */
export const WRITE_BATCH_BYTES = 1_048_576;

/** Gathers pieces and writes them behind the producer. */
export class BatchWriter {
  readonly #handle: FileHandle;
  #batch: Uint8Array[] = [];
  #size = 0;
  #inFlight: Promise<unknown> | undefined;

  /** @internal */
  constructor(handle: FileHandle) {
    this.#handle = handle;
  }

  /**
   * Adds pieces (kept, not copied: do not reuse their buffers). Returns a
   * promise only when the caller must wait (a full batch while the previous
   * one is still being written); otherwise undefined.
   */
  add(pieces: readonly Uint8Array[]): Promise<void> | undefined {
    for (const piece of pieces) {
      if (piece.length === 0) continue;
      this.#batch.push(piece);
      this.#size += piece.length;
    }
    if (this.#size < WRITE_BATCH_BYTES) return undefined;
    return this.#flush();
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

  async #flush(): Promise<void> {
    if (this.#inFlight !== undefined) await this.#inFlight;
    const batch = this.#batch;
    this.#batch = [];
    this.#size = 0;
    this.#inFlight = batch.length === 0 ? undefined : this.#handle.writev(batch);
    // Marked handled now; the failure is rethrown where it is awaited.
    this.#inFlight?.catch(() => undefined);
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
