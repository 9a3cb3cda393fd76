/**
 * Streamed request and response bodies of the node:http binding: a pull
 * reader over an IncomingMessage (for `streamBody` routes such as file
 * uploads), the drain of what a handler left unread, and writing a byte
 * stream with back-pressure.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse as NodeResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { RequestBodyStream } from '../http/types.js';

/** How much of a refused streamed body is read and discarded before the socket is dropped. */
export const STREAM_DRAIN_MAX_BYTES = 256 * 1_048_576;

/** Bytes a streamed body may hold in its queue before the request is paused. */
export const STREAM_QUEUE_BYTES = 1_048_576;

/**
 * A pull reader over `req`: one `read()` at a time, `undefined` at the end or
 * on abort. The socket's pieces are queued as they arrive (`data` events, the
 * request paused while the queue holds a megabyte) and handed out one by one:
 * no piece is copied (`req.read()` joins whatever is buffered into a new
 * array), and a `read()` with a piece ready settles without waiting for an event.
 */
export function readBodyStream(req: IncomingMessage): RequestBodyStream {
  let queue: Buffer[] = [];
  let head = 0;
  let queued = 0;
  let done = false;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  req.on('data', (piece: Buffer) => {
    queue.push(piece);
    queued += piece.length;
    if (queued >= STREAM_QUEUE_BYTES) req.pause();
    notify();
  });
  const stop = (): void => {
    done = true;
    notify();
  };
  req.on('end', stop);
  req.on('error', stop);
  req.on('close', stop);
  return {
    async read() {
      for (;;) {
        if (head < queue.length) {
          const piece = queue[head++]!;
          if (head === queue.length) {
            queue = [];
            head = 0;
          }
          queued -= piece.length;
          if (!done && queued < STREAM_QUEUE_BYTES && req.isPaused()) req.resume();
          return piece;
        }
        if (done || req.destroyed) return undefined;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
    get complete() {
      return req.readableEnded && req.complete;
    },
  };
}

/** Reads and discards the rest of `stream`; false when more than the cap remained (drop the socket). */
export async function drainBody(stream: RequestBodyStream): Promise<boolean> {
  let drained = 0;
  for (;;) {
    const piece = await stream.read();
    if (piece === undefined) return true;
    drained += piece.length;
    if (drained > STREAM_DRAIN_MAX_BYTES) return false;
  }
}

/** Writes `body` to `res` as it is read; a failing source drops the connection. */
export function writeStream(res: NodeResponse, body: AsyncIterable<Uint8Array>): void {
  // A Readable (a stored file) is piped as it is, without a second stream around it.
  const source = body instanceof Readable ? body : Readable.from(body, { objectMode: false });
  pipeline(source, res).catch(() => res.destroy());
}
