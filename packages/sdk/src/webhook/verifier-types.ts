/**
 * The verifier's public types: options, one delivery's input, and what a
 * successful verification returns.
 *
 * @module
 */
import type { Clock } from '../core/clock.js';
import type { WebhookDelivery } from './delivery.js';
import type { WebhookHeaderSource } from './headers.js';
import type { HmacBackendName } from './hmac.js';
import type { WebhookSecretInput } from './secrets.js';
import type { WebhookBody } from './verify-input.js';

/** Options of {@link createWebhookVerifier}. */
export interface WebhookVerifierOptions {
  /**
   * The webhook secret exactly as issued, or several during a rotation (the
   * result's `secretIndex` says which matched). Each must be at least 32 bytes
   * with no surrounding whitespace.
   */
  secret: WebhookSecretInput;
  /**
   * Largest accepted distance between the signing time and now, either direction.
   * May be lowered, never raised above the service's 300 s.
   * @defaultValue `300_000`
   */
  toleranceMs?: number;
  /** Source of "now". @defaultValue `systemClock` */
  clock?: Clock;
  /**
   * HMAC implementation: `auto` uses node:crypto on Node and WebCrypto elsewhere.
   * @defaultValue `'auto'`
   */
  crypto?: HmacBackendName | 'auto';
}

/** One delivery to verify. */
export interface WebhookVerifyInput {
  /** The raw body exactly as received (bytes; a string is taken as its UTF-8 bytes). */
  body: WebhookBody;
  /** Request headers: fetch `Headers`, Node's `req.headers` or a plain object, any case. */
  headers: WebhookHeaderSource;
  /** When the request arrived, ms since the epoch. @defaultValue the clock's now */
  receivedAtMs?: number;
}

/** An authenticated delivery whose body has not been parsed yet. */
export interface VerifiedSignature {
  /** `X-Service-Delivery-Id`: the de-duplication key. */
  readonly deliveryId: string;
  /** `X-Service-Timestamp`, Unix seconds. */
  readonly timestamp: number;
  /** `X-Service-Agent-Id` when sent (not covered by the signature). */
  readonly agentId: string | undefined;
  /** Index of the secret that matched (0 = the first given). */
  readonly secretIndex: number;
  /** The verified raw body. */
  readonly body: Uint8Array;
}

/** An authenticated, parsed and validated delivery. */
export interface VerifiedWebhook extends VerifiedSignature {
  /** The delivery body (wire field names). */
  readonly delivery: WebhookDelivery;
}

/** Verifies deliveries against keys prepared once. */
export interface WebhookVerifier {
  /** The tolerance in force, ms. */
  readonly toleranceMs: number;
  /**
   * True when the synchronous methods are available: the node:crypto backend
   * (Node, Bun, Deno). False on WebCrypto, whose HMAC is asynchronous.
   */
  readonly synchronous: boolean;
  /** Resolves once the keys are prepared; rejects with the {@link index!ConfigurationError | ConfigurationError} that stops it. */
  ready(): Promise<void>;
  /**
   * Checks size, headers, timestamp and signature, then parses and validates the body.
   * @throws {@link WebhookVerificationError} with the status to answer.
   */
  verify(input: WebhookVerifyInput): Promise<VerifiedWebhook>;
  /**
   * Checks size, headers, timestamp and signature only; the body stays raw.
   * @throws {@link WebhookVerificationError} with the status to answer.
   */
  verifySignature(input: WebhookVerifyInput): Promise<VerifiedSignature>;
  /**
   * {@link WebhookVerifier.verify} without the promise, on node:crypto. The async
   * methods delegate to it there, so both give the same answers.
   * @throws {@link WebhookVerificationError} with the status to answer, or
   *   {@link index!ConfigurationError | ConfigurationError} when {@link WebhookVerifier.synchronous} is false.
   */
  verifySync(input: WebhookVerifyInput): VerifiedWebhook;
  /**
   * {@link WebhookVerifier.verifySignature} without the promise, on node:crypto.
   * @throws {@link WebhookVerificationError} with the status to answer, or
   *   {@link index!ConfigurationError | ConfigurationError} when {@link WebhookVerifier.synchronous} is false.
   */
  verifySignatureSync(input: WebhookVerifyInput): VerifiedSignature;
}
