/**
 * The receiver's answers, framework-neutral: status, headers and a JSON body.
 * Errors use the service's error body shape `{ error: { code, message, i18n_key, params } }`.
 *
 * @module
 */
import { isAmsError } from '../core/errors/guards.js';

/** An HTTP answer for the service. Adapters copy it onto their framework's response. */
export interface WebhookResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** JSON text. */
  readonly body: string;
}

/** What a 2xx answer reports in `data.status`. */
export type WebhookOutcome = 'processed' | 'duplicate' | 'accepted' | 'decrypt_failed';

const JSON_TYPE = 'application/json; charset=utf-8';

/** A 200 answer: `{ data: { delivery_id, status } }`. */
export function okResponse(deliveryId: string, outcome: WebhookOutcome): WebhookResponse {
  return {
    status: 200,
    headers: { 'content-type': JSON_TYPE },
    body: JSON.stringify({ data: { delivery_id: deliveryId, status: outcome } }),
  };
}

/**
 * The translation key of a code: `errors.<code in lower case>`, the SDK's rule
 * (`i18nKeyFor` in the protocol model, which `./webhook` cannot import without zod).
 */
export function i18nKeyOf(code: string): string {
  return `errors.${code.toLowerCase()}`;
}

/** An error answer in the service's error body shape. */
export function errorResponse(
  status: number,
  code: string,
  message: string,
  params: Readonly<Record<string, unknown>> = {},
  headers: Readonly<Record<string, string>> = {},
): WebhookResponse {
  return {
    status,
    headers: { 'content-type': JSON_TYPE, ...headers },
    body: JSON.stringify({ error: { code, message, i18n_key: i18nKeyOf(code), params } }),
  };
}

/**
 * The answer for an error: an SDK error with a status answers with that
 * status and code; anything else is a 500 (the service retries) whose message
 * reveals nothing.
 */
export function responseForError(err: unknown): WebhookResponse {
  if (isAmsError(err) && err.status !== undefined && err.status >= 400 && err.status <= 599) {
    return errorResponse(err.status, err.code, err.message, err.params);
  }
  if (isAmsError(err) && err.kind === 'configuration') {
    return errorResponse(500, err.code, err.message);
  }
  return errorResponse(500, 'INTERNAL_ERROR', 'The webhook receiver failed; the delivery will be retried.');
}
