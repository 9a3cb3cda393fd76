/**
 * Request body decoding: size cap, content type, UTF-8 and JSON, in that order.
 * Every failure is a VALIDATION_ERROR naming the reason; the body itself is
 * never quoted back.
 *
 * @module
 */
import { invalidRequest } from './failure.js';
import type { ServerRequest } from './types.js';

const JSON_TYPE = /^application\/json\s*(;.*)?$/i;
const decoder = new TextDecoder('utf-8', { fatal: true });

/** The result of decoding a body: `undefined` when the request had none. */
export type DecodedBody = { readonly present: false } | { readonly present: true; readonly value: unknown };

/**
 * Decodes the JSON body of `req`.
 *
 * @throws {@link ServerFailure} VALIDATION_ERROR with `params.reason` one of
 * `body_too_large` (with `max_bytes`), `unsupported_content_type`, `invalid_utf8`, `malformed_json`.
 */
export function decodeJsonBody(req: ServerRequest, maxBytes: number): DecodedBody {
  if (req.bodyTooLarge === true || req.body.length > maxBytes) {
    throw invalidRequest('body_too_large', `The request body exceeds ${maxBytes} bytes.`, {
      max_bytes: maxBytes,
    });
  }
  if (req.body.length === 0) return { present: false };
  const type = req.headers['content-type'];
  if (type === undefined || !JSON_TYPE.test(type)) {
    throw invalidRequest('unsupported_content_type', 'The request body must be sent as application/json.');
  }
  let text: string;
  try {
    text = decoder.decode(req.body);
  } catch {
    throw invalidRequest('invalid_utf8', 'The request body is not valid UTF-8.');
  }
  try {
    return { present: true, value: JSON.parse(text) as unknown };
  } catch {
    // The SyntaxError quotes the input, so it is not kept.
    throw invalidRequest('malformed_json', 'The request body is not valid JSON.');
  }
}
