import { describe, expect, it } from 'vitest';
import { ErrorResponseSchema, i18nKeyFor } from '../../../packages/sdk/src/core/protocol/error-object.js';
import { toErrorCode } from '../../../packages/sdk/src/core/errors/codes.js';
import { errorResponse, i18nKeyOf, okResponse } from '../../../packages/sdk/src/webhook/responses.js';

const CODES = [
  'WEBHOOK_SIGNATURE_INVALID',
  'WEBHOOK_TIMESTAMP_SKEW',
  'WEBHOOK_HEADER_MISSING',
  'WEBHOOK_PAYLOAD_INVALID',
  'WEBHOOK_PAYLOAD_TOO_LARGE',
  'WEBHOOK_DELIVERY_IN_PROGRESS',
  'WEBHOOK_STORE_FULL',
  'WEBHOOK_STORE_UNAVAILABLE',
  'HANDLER_FAILED',
  'REF_FETCH_FAILED',
  'CONFIGURATION_ERROR',
  'INTERNAL_ERROR',
];

describe('receiver answers', () => {
  it.each(CODES)('%s: the error body has the service shape and the SDK-wide i18n_key rule', (code) => {
    const r = errorResponse(503, code, 'm', { retry_after_ms: 1000 }, { 'retry-after': '1' });
    expect(i18nKeyOf(code)).toBe(i18nKeyFor(toErrorCode(code)));
    const body = ErrorResponseSchema.parse(JSON.parse(r.body));
    expect(body.error).toEqual({
      code,
      message: 'm',
      i18n_key: i18nKeyFor(toErrorCode(code)),
      params: { retry_after_ms: 1000 },
    });
    expect(r.headers).toEqual({ 'content-type': 'application/json; charset=utf-8', 'retry-after': '1' });
  });

  it('acknowledges with { data: { delivery_id, status } }', () => {
    expect(JSON.parse(okResponse('d-1', 'duplicate').body)).toEqual({
      data: { delivery_id: 'd-1', status: 'duplicate' },
    });
  });
});
