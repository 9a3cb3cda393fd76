/**
 * Response builders: success under `data`, errors under `error`.
 *
 * @module
 */
import { errorBody, toErrorCode } from 'agent-messaging-sdk/protocol';
import type { ServerFailure } from './failure.js';
import type { ServerResponse } from './types.js';

type Headers = Readonly<Record<string, string | readonly string[]>>;

/** Auth answers carry tokens: no cache may keep them. */
const BASE_HEADERS = { 'cache-control': 'no-store' } as const;

/**
 * A success answer: `{ data }` with `status`.
 *
 * @defaultValue status 200
 */
export function ok(data: unknown, status = 200, headers: Headers = {}): ServerResponse {
  return { status, headers: { ...BASE_HEADERS, ...headers }, body: { data } };
}

/** The error answer for a refused request. */
export function failureResponse(failure: ServerFailure): ServerResponse {
  return {
    status: failure.status,
    headers: { ...BASE_HEADERS, ...failure.headers },
    body: errorBody(failure.code, failure.message, failure.params),
  };
}

/** The answer for an unexpected server error: no stack, no detail. */
export function internalErrorResponse(): ServerResponse {
  return {
    status: 500,
    headers: BASE_HEADERS,
    body: errorBody(toErrorCode('INTERNAL_ERROR'), 'The server failed to handle the request.'),
  };
}
