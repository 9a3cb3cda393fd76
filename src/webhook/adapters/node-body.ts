/**
 * Getting the raw body of a Node-style request exactly once: an already
 * captured buffer or string when a framework kept one (`req.rawBody`,
 * `express.raw()`, `express.text()`), otherwise the stream itself, read in one
 * pass and capped at 1 MB. A body that a JSON parser already consumed is
 * reported as such, so the adapter can say what to change instead of failing
 * with a misleading signature mismatch.
 *
 * @module
 */
import { concatBytes, utf8 } from '../../core/encoding.js';
import { getHeader, type WebhookHeaderSource } from '../headers.js';

/** The members of a Node `IncomingMessage` (or Express/Fastify request) the adapters use. */
export interface NodeRequestLike {
  readonly headers: WebhookHeaderSource;
  on(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
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
  | { readonly kind: 'too_large' }
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
 * Reads the request stream in one pass. Stops keeping bytes (and discards the
 * rest) as soon as more than `maxBytes` arrive.
 */
export function readNodeStream(req: NodeRequestLike, maxBytes: number): Promise<RawBodyResult> {
  if (declaredTooLarge(req.headers, maxBytes)) {
    req.resume?.();
    return Promise.resolve({ kind: 'too_large' });
  }
  return new Promise((resolve) => {
    const chunks: Uint8Array[] = [];
    let total = 0;
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
      if (total > maxBytes) {
        finish({ kind: 'too_large' });
        req.resume?.(); // drain and discard the rest
      } else {
        chunks.push(bytes);
      }
    };
    const onEnd = (): void =>
      finish({ kind: 'ok', body: chunks.length === 1 ? chunks[0]! : concatBytes(...chunks) });
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
