/**
 * Reading the service's answers: success bodies are `{ data: … }` (validated
 * with an optional zod schema), error bodies `{ error: { code, … } }`.
 *
 * @module
 */
import type { z } from 'zod';
import { readHeader, toServiceError } from '../../core/errors/parse-error-response.js';
import type { ServiceError } from '../../core/errors/service-error.js';
import { TransportError } from '../../core/errors/transport-error.js';
import { parseWith } from '../../core/protocol/parse.js';
import type { RawResponse } from './attempt.js';

const decoder = new TextDecoder('utf-8', { fatal: true });

function badResponse(raw: RawResponse, what: string, problem: string): TransportError {
  return new TransportError({
    code: 'TRANSPORT_BAD_RESPONSE',
    status: raw.status,
    requestId: readHeader(raw.headers, 'x-request-id'),
    message: `${what}: ${problem}.`,
  });
}

/**
 * The typed error for an error answer (status ≥ 300): a ServiceError /
 * RateLimitError for a well-formed error object, else a TransportError
 * `TRANSPORT_BAD_RESPONSE` carrying the status (and Retry-After, if any),
 * whose message names `where` (method and URL without its query) and asks
 * whether baseUrl is right.
 */
export function errorOf(raw: RawResponse, nowMs: number, where?: string): ServiceError | TransportError {
  const error = toServiceError({ status: raw.status, headers: raw.headers, body: raw.bytes }, nowMs);
  if (where === undefined || error.code !== 'TRANSPORT_BAD_RESPONSE') return error;
  // Not the service's error shape: most often a wrong baseUrl (another server, a proxy's page).
  return new TransportError({
    code: 'TRANSPORT_BAD_RESPONSE',
    status: raw.status,
    requestId: error.requestId,
    retryAfterMs: error.retryAfterMs,
    message:
      `${where} answered HTTP ${raw.status} without the service's error object: ` +
      'is baseUrl the address of the messaging service (not a web page or another API)?',
  });
}

/**
 * The `data` of a success answer, checked against `schema` when given.
 * An empty body (e.g. 204) gives `undefined`.
 *
 * @param what - e.g. `GET /agents/a1/delivery-logs`, used in messages.
 * @throws {@link TransportError} `TRANSPORT_BAD_RESPONSE` for a body that is not
 * UTF-8 JSON shaped `{ data: … }`; {@link ValidationError} when `schema` rejects `data`.
 */
export function dataOf<T>(raw: RawResponse, what: string, schema?: z.ZodType<T>): T {
  let data: unknown;
  if (raw.bytes.length > 0) {
    let json: unknown;
    try {
      json = JSON.parse(decoder.decode(raw.bytes));
    } catch {
      throw badResponse(raw, what, 'the success body is not JSON');
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json) || !Object.hasOwn(json, 'data')) {
      throw badResponse(raw, what, 'the success body has no "data" member');
    }
    data = (json as { data: unknown }).data;
  }
  if (schema === undefined) return data as T;
  return parseWith(schema, data, `response of ${what}`);
}

/** The `content-type` header of a response as sent (parameters kept), if any. */
export function contentTypeOf(raw: RawResponse): string | undefined {
  const value = readHeader(raw.headers, 'content-type')?.trim();
  return value === undefined || value === '' ? undefined : value;
}
