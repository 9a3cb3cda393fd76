/**
 * Writing a stream of byte pieces to a file with few system calls: pieces
 * are gathered into batches of about 1 MiB, each written with one `writev`
 * while the next batch fills (at most two batches held). Used for the
 * plaintext of a download, where one write per 64 KiB chunk through a
 * stream pipeline cost more CPU than decrypting it.
 *
 * @module
 */
import { open } from 'node:fs/promises';

/** Bytes gathered before a batch is written. */
export const WRITE_BATCH_BYTES = 1_048_576;

/** Writes every piece of `pieces` to a new file at `path` (created or truncated); closes it in every case. */
export async function writePiecesToFile(pieces: AsyncIterable<Uint8Array>, path: string): Promise<void> {
  const handle = await open(path, 'w');
  let inFlight: Promise<unknown> | undefined;
  try {
    let batch: Uint8Array[] = [];
    let size = 0;
    const flush = async (): Promise<void> => {
      if (inFlight !== undefined) await inFlight;
      inFlight = batch.length === 0 ? undefined : handle.writev(batch);
      // Marked handled now; the failure is rethrown where it is awaited.
      inFlight?.catch(() => undefined);
      batch = [];
      size = 0;
    };
    for await (const piece of pieces) {
      if (piece.length === 0) continue;
      batch.push(piece);
      size += piece.length;
      if (size >= WRITE_BATCH_BYTES) await flush();
    }
    await flush();
    if (inFlight !== undefined) await inFlight;
    inFlight = undefined;
  } finally {
    // A failed read leaves a write in flight: let it settle before closing.
    if (inFlight !== undefined) await inFlight.catch(() => undefined);
    await handle.close();
  }
}
