/**
 * The receiver's "get the plaintext" step: fetch the `ref` when there is one,
 * decode the base64 envelope otherwise, then call the injected `open`.
 * Returns either the payload or the answer to give, plus what to do with the claim.
 *
 * @module
 */
import { fromBase64 } from '../core/encoding.js';
import { ConfigurationError } from '../core/errors/configuration-error.js';
import { isConfigurationError, isCryptoError } from '../core/errors/guards.js';
import { HandlerError } from '../core/errors/handler-error.js';
import type { CryptoError } from '../core/errors/crypto-error.js';
import { WebhookVerificationError } from '../core/errors/webhook-verification-error.js';
import type { WebhookDelivery } from './delivery.js';
import type { WebhookReceiverEvent } from './events.js';
import type { RefFetcher } from './refs/fetcher.js';
import { errorResponse, okResponse, responseForError, type WebhookResponse } from './responses.js';

/** Opens an envelope. May throw {@link CryptoError} `DECRYPT_FAILURE` with a `reason`. */
export type OpenEnvelope<T> = (envelope: Uint8Array, delivery: WebhookDelivery) => Promise<T>;

/** Result of the open step. */
export type OpenOutcome<T> =
  | { readonly ok: true; readonly payload: T }
  | {
      readonly ok: false;
      readonly response: WebhookResponse;
      /** `complete` when a retry cannot help (acknowledged), else `release`. */
      readonly claim: 'complete' | 'release';
      readonly event: WebhookReceiverEvent;
    };

async function envelopeBytes(
  delivery: WebhookDelivery,
  deliveryId: string,
  fetchRef: RefFetcher | undefined,
) {
  if (delivery.ref === undefined) return fromBase64(delivery.wire_envelope ?? '');
  if (fetchRef === undefined) {
    throw new ConfigurationError({
      option: 'fetchRef',
      message: `Delivery ${deliveryId} carries a ref but no "fetchRef" is configured: pass createRefFetcher({ baseUrl, agentToken }).`,
    });
  }
  return fetchRef(delivery.ref);
}

function decryptFailure(err: CryptoError, delivery: WebhookDelivery, deliveryId: string): OpenOutcome<never> {
  return {
    ok: false,
    claim: 'complete',
    response: okResponse(deliveryId, 'decrypt_failed'),
    event: {
      type: 'decryptFailure',
      deliveryId,
      reason: err.reason,
      code: err.code === 'INVALID_ENVELOPE' ? 'INVALID_ENVELOPE' : 'DECRYPT_FAILURE',
      eventType: delivery.type,
      metadata: delivery.metadata,
      error: err,
    },
  };
}

/** Runs the open step for a claimed delivery. Never throws. */
export async function openDelivery<T>(
  delivery: WebhookDelivery,
  deliveryId: string,
  open: OpenEnvelope<T>,
  fetchRef: RefFetcher | undefined,
): Promise<OpenOutcome<T>> {
  let bytes: Uint8Array | undefined;
  try {
    bytes = await envelopeBytes(delivery, deliveryId, fetchRef);
  } catch (error) {
    if (isConfigurationError(error)) {
      return {
        ok: false,
        claim: 'release',
        response: responseForError(error),
        event: { type: 'configurationError', error, deliveryId },
      };
    }
    const response = errorResponse(
      502,
      'REF_FETCH_FAILED',
      'The referenced object could not be fetched; the delivery will be retried.',
    );
    return { ok: false, claim: 'release', response, event: { type: 'refFetchError', deliveryId, error } };
  }
  if (bytes === undefined) {
    const error = new WebhookVerificationError({
      code: 'WEBHOOK_PAYLOAD_INVALID',
      status: 400,
      message: 'The webhook body is not a valid delivery: wire_envelope must be base64.',
      params: { field: 'wire_envelope' },
    });
    return {
      ok: false,
      claim: 'release',
      response: responseForError(error),
      event: { type: 'rejected', error },
    };
  }
  try {
    return { ok: true, payload: await open(bytes, delivery) };
  } catch (err) {
    if (isCryptoError(err, 'DECRYPT_FAILURE') || isCryptoError(err, 'INVALID_ENVELOPE')) {
      return decryptFailure(err, delivery, deliveryId);
    }
    const error = new HandlerError({
      message: 'Opening the envelope failed.',
      event: { deliveryId, type: delivery.type },
      cause: err,
    });
    const response = errorResponse(
      500,
      'HANDLER_FAILED',
      'Opening the envelope failed; the delivery will be retried.',
    );
    return {
      ok: false,
      claim: 'release',
      response,
      event: { type: 'handlerError', deliveryId, error, acknowledged: false },
    };
  }
}
