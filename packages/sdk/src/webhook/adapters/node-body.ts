/**
 * Getting the raw body of a Node-style request exactly once: an already
 * captured buffer or string when a framework kept one (`req.rawBody`,
 * `express.raw()`, `express.text()`), otherwise the stream itself, read in one
 * pass and capped at 1 MB (a larger body is read on and discarded, up to 16 MB,
 * before it is answered 413, so the sender can read the answer; a body whose
 * Content-Length already says it is too large is answered at once, and then
 * discarded within a bound in bytes and time). A body that a JSON parser already consumed is
 * reported as such, so the adapter can say what to change instead of failing
 * with a misleading signature mismatch.
 *
 * @module
 */
import { concatBytes, utf8 } from '../../core/encoding.js';
import { getHeader, type WebhookHeaderSource } from '../headers.js';

/**
 * How much of an oversized body is read and thrown away before the 413 is
 * written, so that the sender finishes writing and can read the answer: 16 MB.
 */
export const DISCARD_MAX_BYTES = 16 * 1024 * 1024;

/**
 * How long the rest of a body answered 413 from its Content-Length is read
 * and thrown away before the connection is closed: 10 s. A sender whose
 * Content-Length promises more than it sends already has its answer; this
 * bounds what it can hold open.
 */
export const DISCARD_MAX_MS = 10_000;

/** The members of a Node `IncomingMessage` (or Express/Fastify request) the adapters use. */
export interface NodeRequestLike {
  readonly headers: WebhookHeaderSource;
  on(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  /** Ends the request and its connection (Node's `IncomingMessage.destroy`). */
  destroy?(): unknown;
  // Overloads shaped like `on` (not `(...args: never[]) => void`): an `IncomingMessage`
  // of current `@types/node`, whose `removeListener` is generic over its event map,
  // is assignable to these and to those of `@types/node` 20 alike.
  removeListener(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
  removeListener(event: 'end' | 'close', listener: () => void): unknown;
  removeListener(event: 'error', listener: (error: Error) => void): unknown;
  resume?(): unknown;
  /** True once the stream has been read to its end. */
  readonly readableEnded?: boolean;
  /** Set by body parsers: Express `express.raw()` / `express.json()`, etc. */
  readonly body?: unknown;
  /** Set by raw-body plugins (`fastify-raw-body`, custom `verify` hooks). */
  readonly rawBody?: unknown;
}

/** Outcome of reading a request body. */
export type RawBodyResult =
  | { readonly kind: 'ok'; readonly body: Uint8Array | string }
  | {
      readonly kind: 'too_large';
      /**
       * Set when the answer is due before the body was read (its Content-Length
       * is over the cap): settles once the rest was discarded, or the bound in
       * bytes or time was reached and the request destroyed. The adapter writes
       * the 413 at once and ends the response (closing the connection) then.
       */
      readonly discarded?: Promise<void>;
    }
  | { readonly kind: 'consumed' }
  | { readonly kind: 'error'; readonly error: unknown };

/** Marks results produced by our own Fastify content-type parser. */
export const RAW_BODY_RESULT: unique symbol = Symbol.for('agent-messaging-sdk.webhook.raw-body');

function isBytesOrText(v: unknown): v is Uint8Array | string {
  return v instanceof Uint8Array || typeof v === 'string';
}

/**
 * The body a framework already captured, `'consumed'` when a parser read the
 * stream without keeping the bytes, or `undefined` when the stream is still unread.
 */
export function capturedBody(req: NodeRequestLike): Uint8Array | string | 'consumed' | undefined {
  if (isBytesOrText(req.rawBody)) return req.rawBody;
  if (isBytesOrText(req.body)) return req.body;
  // body-parser sets `_body` once it has parsed; `readableEnded` covers every other reader.
  if (req.readableEnded === true || (req as { _body?: unknown })._body === true) return 'consumed';
  return undefined;
}

/** True when the declared Content-Length already exceeds `maxBytes`. */
export function declaredTooLarge(headers: WebhookHeaderSource, maxBytes: number): boolean {
  const declared = getHeader(headers, 'content-length');
  return declared !== undefined && Number(declared) > maxBytes;
}

/**
 * Reads and throws away the rest of `req`: settles at its end, or once more
 * than `maxBytes` arrived or `maxMs` passed (the request is then destroyed).
 */
export function discardRest(req: NodeRequestLike, maxBytes: number, maxMs: number): Promise<void> {
  return new Promise((resolve) => {
    let total = 0;
    const finish = (): void => {
      clearTimeout(timer);
      req.removeListener('data', onData);
      req.removeListener('end', finish);
      req.removeListener('error', finish);
      req.removeListener('close', finish);
      resolve();
    };
    const stop = (): void => {
      finish();
      req.on('error', () => undefined);
      req.destroy?.();
    };
    const onData = (chunk: Uint8Array | string): void => {
      total += chunk.length;
      if (total > maxBytes) stop();
    };
    const timer = setTimeout(stop, maxMs);
    req.on('data', onData);
    req.on('end', finish);
    req.on('error', finish);
    req.on('close', finish);
    req.resume?.();
  });
}

/**
 * Reads the request stream in one pass, keeping at most `maxBytes`.
 *
 * A body over `maxBytes` is still read to its end and thrown away, up to
 * `discardBytes` in all, before `too_large` is reported: answering while the
 * sender is still writing and then closing the connection makes the sender
 * see EPIPE / ECONNRESET instead of the 413 (issue #11). A body declared
 * larger than `discardBytes` is reported at once; the adapter answers and the
 * connection is closed. A body declared larger than `maxBytes` (but not
 * `discardBytes`) is reported at once too, with `discarded`: the sender may
 * promise more than it sends and wait (issue #28), so the 413 is written now
 * and the connection closed once the rest was read, within `discardBytes` and
 * `discardMs`.
 */
export function readNodeStream(
  req: NodeRequestLike,
  maxBytes: number,
  discardBytes: number = DISCARD_MAX_BYTES,
  discardMs: number = DISCARD_MAX_MS,
): Promise<RawBodyResult> {
  if (declaredTooLarge(req.headers, discardBytes)) {
    req.resume?.();
    return Promise.resolve({ kind: 'too_large' });
  }
  if (declaredTooLarge(req.headers, maxBytes)) {
    return Promise.resolve({ kind: 'too_large', discarded: discardRest(req, discardBytes, discardMs) });
  }
  return new Promise((resolve) => {
    let chunks: Uint8Array[] = [];
    let total = 0;
    let tooLarge = false;
    const finish = (result: RawBodyResult): void => {
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('error', onError);
      req.removeListener('close', onClose);
      resolve(result);
    };
    const onData = (chunk: Uint8Array | string): void => {
      const bytes = typeof chunk === 'string' ? utf8(chunk) : chunk;
      total += bytes.length;
      if (total > discardBytes) {
        finish({ kind: 'too_large' });
        req.resume?.(); // keeps flowing until the connection closes after the answer
      } else if (total > maxBytes || tooLarge) {
        tooLarge = true;
        chunks = []; // read on and discard, so the sender finishes writing
      } else {
        chunks.push(bytes);
      }
    };
    const onEnd = (): void =>
      finish(
        tooLarge
          ? { kind: 'too_large' }
          : { kind: 'ok', body: chunks.length === 1 ? chunks[0]! : concatBytes(...chunks) },
      );
    const onError = (error: Error): void => finish({ kind: 'error', error });
    const onClose = (): void =>
      finish({ kind: 'error', error: new Error('The request closed before its body ended.') });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** The raw body of a Node-style request: captured, consumed, or read now. */
export function readNodeBody(req: NodeRequestLike, maxBytes: number): Promise<RawBodyResult> {
  const captured = capturedBody(req);
  if (captured === 'consumed') return Promise.resolve({ kind: 'consumed' });
  if (captured !== undefined) return Promise.resolve({ kind: 'ok', body: captured });
  return readNodeStream(req, maxBytes);
}
