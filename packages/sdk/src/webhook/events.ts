/**
 * What the receiver reports besides its HTTP answers: one typed event union,
 * delivered to the `onEvent` option (and `decryptFailure` also to
 * `onDecryptFailure`). No event emitter dependency.
 *
 * @module
 */
import type { ConfigurationError } from '../core/errors/configuration-error.js';
import type { DecryptFailureReason } from '../core/errors/codes.js';
import type { CryptoError } from '../core/errors/crypto-error.js';
import type { HandlerError } from '../core/errors/handler-error.js';
import type { WebhookVerificationError } from '../core/errors/webhook-verification-error.js';
import type { WebhookDelivery, WebhookEventType, WebhookMetadata } from './delivery.js';

/** What the handler receives for one delivery. */
export interface WebhookEvent<T = WebhookDelivery> {
  /** `X-Service-Delivery-Id`. */
  readonly deliveryId: string;
  /** `X-Service-Agent-Id`, when sent. */
  readonly agentId: string | undefined;
  /** Signing time, Unix seconds. */
  readonly timestamp: number;
  /** The event type (`delivery.type`). */
  readonly type: WebhookEventType;
  /** The verified delivery body (wire field names). */
  readonly delivery: WebhookDelivery;
  /** What `open` returned; the delivery body itself when no `open` is configured. */
  readonly payload: T;
  /** Index of the secret that matched (non-zero during a rotation). */
  readonly secretIndex: number;
}

/** An envelope could not be opened: acknowledged (a retry cannot fix it) and reported. */
export interface DecryptFailureEvent {
  readonly type: 'decryptFailure';
  readonly deliveryId: string;
  /** Which check failed (`DECRYPT_FAILURE`); undefined for `INVALID_ENVELOPE`. */
  readonly reason: DecryptFailureReason | undefined;
  readonly code: 'DECRYPT_FAILURE' | 'INVALID_ENVELOPE';
  readonly eventType: WebhookEventType;
  readonly metadata: WebhookMetadata;
  readonly error: CryptoError;
}

/** Names of the receiver's events. */
export type WebhookReceiverEventName = WebhookReceiverEvent['type'];

/** Everything the receiver reports. */
export type WebhookReceiverEvent =
  /** A delivery was refused (bad headers, skew, signature, body, size). */
  | { readonly type: 'rejected'; readonly error: WebhookVerificationError }
  /** The receiver is set up wrongly (e.g. body already parsed); answered 500 so the service retries. */
  | { readonly type: 'configurationError'; readonly error: ConfigurationError; readonly deliveryId?: string }
  /** A copy of a delivery that is completed (answered 200) or still in flight (answered 429). */
  | {
      readonly type: 'duplicate';
      readonly deliveryId: string;
      readonly state: 'completed' | 'in_flight' | 'busy';
    }
  | DecryptFailureEvent
  /** The ciphertext of a `ref` could not be fetched; answered 502 so the service retries. */
  | { readonly type: 'refFetchError'; readonly deliveryId: string; readonly error: unknown }
  /**
   * The handler (or `open`, for errors other than decrypt failures) threw.
   * `acknowledged` is true in `respondEarly` mode, where the service already got 200.
   */
  | {
      readonly type: 'handlerError';
      readonly deliveryId: string;
      readonly error: HandlerError;
      readonly acknowledged: boolean;
    }
  /** The de-duplication store failed. */
  | {
      readonly type: 'storeError';
      readonly deliveryId: string;
      readonly operation: 'claim' | 'complete' | 'release';
      readonly error: unknown;
    }
  /** The handler finished. */
  | { readonly type: 'handled'; readonly deliveryId: string; readonly eventType: WebhookEventType };
