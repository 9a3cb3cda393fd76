/**
 * node:http binding of the core: reads the body under a cap, builds a
 * {@link ServerRequest}, writes the {@link ServerResponse} as JSON.
 *
 * A body over the cap is drained (so the client can read the answer) up to
 * {@link DRAIN_FACTOR} × the cap; past that the connection is dropped.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse as NodeResponse } from 'node:http';
import type { RequestHandler } from '../app.js';
import type { RequestBodyStream, ServerRequest, ServerResponse } from '../http/types.js';
import { drainBody, readBodyStream, writeStream } from './stream-body.js';

/** How far past the cap an oversized body is read and discarded before the socket is dropped. */
export const DRAIN_FACTOR = 64;

function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function readBody(
  req: IncomingMessage,
  maxBytes: number,
): Promise<{ body: Uint8Array; tooLarge: boolean } | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes * DRAIN_FACTOR) {
        req.destroy();
        resolve(undefined);
        return;
      }
      if (size > maxBytes) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve({ body: tooLarge ? new Uint8Array() : Buffer.concat(chunks), tooLarge }));
    req.on('error', () => resolve(undefined));
    req.on('aborted', () => resolve(undefined));
  });
}

function write(res: NodeResponse, out: ServerResponse): void {
  res.statusCode = out.status;
  for (const [name, value] of Object.entries(out.headers)) res.setHeader(name, value as string | string[]);
  res.setHeader('x-request-id', randomUUID());
  if (out.stream !== undefined) {
    writeStream(res, out.stream);
    return;
  }
  // Raw bytes (objects) are written as they are, with the handler's content type.
  if (out.body instanceof Uint8Array) {
    res.setHeader('content-length', out.body.length);
    res.end(out.body);
    return;
  }
  const text = out.body === undefined ? undefined : JSON.stringify(out.body);
  if (text === undefined) {
    res.end();
    return;
  }
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
}

/** The body cap of a request: a number, or a function of method and path (routes may differ). */
export type BodyCap = number | ((method: string, path: string) => number);

function capOf(cap: BodyCap, req: IncomingMessage): number {
  if (typeof cap === 'number') return cap;
  let path = '/';
  try {
    path = new URL(req.url ?? '/', 'http://reference.invalid').pathname;
  } catch {
    // fall through with '/'
  }
  return cap((req.method ?? 'GET').toUpperCase(), path);
}

/** Whether a request's body goes to its handler unread (`streamBody` routes). */
export type StreamedBody = (method: string, path: string) => boolean;

function pathOf(req: IncomingMessage): string {
  try {
    return new URL(req.url ?? '/', 'http://reference.invalid').pathname;
  } catch {
    return '/';
  }
}

/** A node:http request listener over the core handler. */
export function createNodeListener(handle: RequestHandler, maxBytes: BodyCap, streamed?: StreamedBody) {
  return (req: IncomingMessage, res: NodeResponse): void => {
    void (async () => {
      let stream: RequestBodyStream | undefined;
      let read: { body: Uint8Array; tooLarge: boolean } | undefined;
      if (streamed?.((req.method ?? 'GET').toUpperCase(), pathOf(req)) === true) {
        stream = readBodyStream(req);
        read = { body: new Uint8Array(), tooLarge: false };
      } else {
        read = await readBody(req, capOf(maxBytes, req));
      }
      if (read === undefined) {
        res.destroy();
        return;
      }
      let url: URL;
      try {
        url = new URL(req.url ?? '/', 'http://reference.invalid');
      } catch {
        url = new URL('http://reference.invalid/');
      }
      const request: ServerRequest = {
        method: (req.method ?? 'GET').toUpperCase(),
        path: url.pathname,
        query: url.searchParams,
        headers: headersOf(req),
        body: read.body,
        bodyTooLarge: read.tooLarge,
        ...(stream === undefined ? {} : { stream }),
      };
      write(res, await handle(request));
      // What a refused upload left unread is read and discarded (up to a cap), so the
      // client can finish sending and read the answer instead of meeting a reset.
      if (stream !== undefined) {
        void drainBody(stream).then((drained) => {
          if (!drained) req.destroy();
        });
      }
    })().catch(() => res.destroy());
  };
}
