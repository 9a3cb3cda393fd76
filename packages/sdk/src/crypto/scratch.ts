/**
 * One reusable buffer for the transient envelope bytes of the synchronous
 * `seal` (the envelope before it becomes base64) and `open` (the envelope
 * decoded from base64). A fresh buffer of a megabyte costs more than
 * SHA-256 over it (the pages of each new allocation are faulted in), so the
 * large paths borrow this one instead.
 *
 * Only ciphertext ever rests in it: `seal` writes the plaintext where the
 * ciphertext goes and encrypts over it, and clears it if encryption fails.
 * A nested call (a `senderKey` callback that opens another envelope) finds
 * it busy and allocates.
 *
 * @module
 */

/** Largest envelope that borrows the scratch (larger ones allocate; the scratch never grows past this). */
export const SCRATCH_MAX_BYTES = 2 * 1_048_576;
/** Below this size a fresh allocation is as cheap as borrowing. */
export const SCRATCH_MIN_BYTES = 16 * 1024;

let buffer: Uint8Array | undefined;
let busy = false;

/**
 * A view of `size` bytes of the shared scratch, or `undefined` when it is in
 * use, or `size` is outside [{@link SCRATCH_MIN_BYTES}, {@link SCRATCH_MAX_BYTES}].
 * A caller that got a view must call {@link releaseScratch} (in a `finally`).
 */
export function borrowScratch(size: number): Uint8Array | undefined {
  if (busy || size < SCRATCH_MIN_BYTES || size > SCRATCH_MAX_BYTES) return undefined;
  if (buffer === undefined || buffer.length < size) buffer = new Uint8Array(Math.max(size, 1_048_576 + 4096));
  busy = true;
  return buffer.subarray(0, size);
}

/** Returns the scratch borrowed with {@link borrowScratch}. */
export function releaseScratch(): void {
  busy = false;
}

interface BufferLike {
  allocUnsafe(size: number): Uint8Array;
}
const NodeBuffer = (globalThis as { Buffer?: BufferLike }).Buffer;

/**
 * A fresh array of `size` bytes for a caller that overwrites all of them: not
 * zeroed where the runtime has Buffer (small sizes come from its pool).
 */
export function allocBytes(size: number): Uint8Array {
  if (NodeBuffer === undefined) return new Uint8Array(size);
  const b = NodeBuffer.allocUnsafe(size);
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}
