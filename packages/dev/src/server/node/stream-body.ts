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

/** A pull reader over `req`: one `read()` at a time, `undefined` at the end or on abort. */
export function readBodyStream(req: IncomingMessage): RequestBodyStream {
  let closed = false;
  const stop = (): void => {
    closed = true;
  };
  req.on('end', stop);
  req.on('error', stop);
  req.on('close', stop);
  return {
    async read() {
      for (;;) {
        const chunk = req.read() as Buffer | null;
        if (chunk !== null) return chunk;
        if (closed || req.readableEnded || req.destroyed) return undefined;
        await new Promise<void>((resolve) => {
          const done = (): void => {
            req.off('readable', done);
            req.off('end', done);
            req.off('error', done);
            req.off('close', done);
            resolve();
          };
          req.on('readable', done);
          req.on('end', done);
          req.on('error', done);
          req.on('close', done);
        });
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
