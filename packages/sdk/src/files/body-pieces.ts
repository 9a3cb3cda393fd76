/**
 * Reading a response body piece by piece with a synchronous callback: on a
 * Node `Readable` (the HTTP client's body) through its `data` events, so
 * each network read reaches the callback as it arrived (no promise per
 * piece, and no joining of buffered pieces that `read()` does when the
 * consumer lags); the stream is paused while a promise the callback returned
 * is pending (back-pressure). Any other async iterable is read with
 * `for await`.
 *
 * @module
 */
import { Readable } from 'node:stream';
import { discardBody } from '../transport/rest/discard-body.js';

/**
 * Calls `onPiece` for every piece of `body`, in order; waits for the promise
 * it returns (if any) before the next piece. Rejects with the first error of
 * the body or of `onPiece` (the body is then destroyed).
 */
export async function forEachPiece(
  body: AsyncIterable<Uint8Array>,
  onPiece: (piece: Uint8Array) => Promise<void> | undefined,
): Promise<void> {
  if (!(body instanceof Readable)) {
    for await (const piece of body) {
      const due = onPiece(piece);
      if (due !== undefined) await due;
    }
    return;
  }
  const stream = body;
  await new Promise<void>((resolve, reject) => {
    let failed = false;
    let pending: Promise<void> | undefined;
    const fail = (err: unknown): void => {
      if (failed) return;
      failed = true;
      cleanup();
      discardBody(stream);
      reject(err);
    };
    const onData = (piece: Uint8Array): void => {
      if (failed) return;
      let due: Promise<void> | undefined;
      try {
        due = onPiece(piece);
      } catch (err) {
        fail(err);
        return;
      }
      if (due === undefined) return;
      stream.pause();
      pending = due.then(() => {
        pending = undefined;
        if (!failed) stream.resume();
      }, fail);
    };
    const onEnd = (): void => {
      if (failed) return;
      cleanup();
      // The last piece's promise may still be pending: the end waits for it.
      if (pending === undefined) resolve();
      else void pending.then(() => (failed ? undefined : resolve()));
    };
    const onClose = (): void => {
      if (!stream.readableEnded)
        fail(stream.errored ?? new Error('The response body closed before its end.'));
    };
    const cleanup = (): void => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', fail);
      stream.off('close', onClose);
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', fail);
    stream.on('close', onClose);
  });
}
