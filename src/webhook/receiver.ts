/**
 * The webhook receiver: one framework-neutral flow that every adapter calls.
 *
 * verify → de-duplication claim → fetch `ref` (if any) → open the envelope →
 * call the handler → answer.
 *
 * | Situation                                   | Answer                         |
 * |---------------------------------------------|--------------------------------|
 * | handler finished                             | 200 `processed`                |
 * | id completed within 24 h                     | 200 `duplicate` (no handler)   |
 * | same id still being handled                  | 429 + Retry-After (retried)    |
 * | handler threw                                | 500, claim released (retried)  |
 * | decrypt failure                              | 200 `decrypt_failed` + event   |
 * | ref fetch failed                             | 502 (retried)                  |
 * | store full of live claims / store failing    | 503 + Retry-After (retried)    |
 * | bad headers, skew, signature, body, size     | 400 / 401 / 413 (permanent)    |
 *
 * @module
 */
import { systemClock, type Clock } from '../core/clock.js';
import { ConfigurationError } from '../core/errors/configuration-error.js';
import { HandlerError } from '../core/errors/handler-error.js';
import { isConfigurationError, isWebhookVerificationError } from '../core/errors/guards.js';
import { DEFAULT_WEBHOOK_OPTIONS } from './constants.js';
import { createMemoryDedupStore } from './dedup/memory.js';
import type { DedupStore } from './dedup/types.js';
import { parseWebhookDelivery, type WebhookDelivery } from './delivery.js';
import type { DecryptFailureEvent, WebhookEvent, WebhookReceiverEvent } from './events.js';
import type { WebhookHeaderSource } from './headers.js';
import type { HmacBackendName } from './hmac.js';
import { openDelivery, type OpenEnvelope } from './open-step.js';
import type { RefFetcher } from './refs/fetcher.js';
import { errorResponse, okResponse, responseForError, type WebhookResponse } from './responses.js';
import type { WebhookSecretInput } from './secrets.js';
import { createWebhookVerifier, type VerifiedSignature, type WebhookVerifier } from './verify.js';
import type { WebhookBody } from './verify-input.js';

/** Options of {@link createWebhookReceiver}. */
export interface WebhookReceiverOptions<T = WebhookDelivery> {
  /** The webhook secret exactly as issued, or several during a rotation. */
  secret: WebhookSecretInput;
  /**
   * Your code. Answered 200 once it resolves; if it throws, the claim is
   * released and the service retries (500). The service waits 10 s at most:
   * for longer work see {@link WebhookReceiverOptions.respondEarly}.
   */
  handler: (event: WebhookEvent<T>) => unknown;
  /**
   * Opens the envelope (e.g. with `./crypto`). May throw `CryptoError`
   * `DECRYPT_FAILURE` with a `reason`: such deliveries are acknowledged and reported.
   * Without it the handler's `payload` is the verified delivery body and refs are not fetched.
   */
  open?: OpenEnvelope<T>;
  /** Fetches `ref` ciphertext; needed with `open` when deliveries can exceed 1 MB. See `createRefFetcher`. */
  fetchRef?: RefFetcher;
  /** De-duplication store. @defaultValue `createMemoryDedupStore({ clock })` */
  dedup?: DedupStore;
  /**
   * Answer 200 as soon as the delivery is claimed and opened, then run the
   * handler. The service stops waiting, but a handler failure can no longer
   * trigger a retry: the message is only reported (`handler_error` with
   * `acknowledged: true`). Use it when the handler hands work to your own
   * durable queue or can afford to lose a message.
   * @defaultValue `false`
   */
  respondEarly?: boolean;
  /** Called for each envelope that cannot be opened (acknowledged, never retried). */
  onDecryptFailure?: (event: DecryptFailureEvent) => void;
  /** Called for every receiver event (rejections, duplicates, failures, completions). */
  onEvent?: (event: WebhookReceiverEvent) => void;
  /** Source of time. @defaultValue `systemClock` */
  clock?: Clock;
  /** Timestamp tolerance, at most 300 s. @defaultValue `300_000` */
  toleranceMs?: number;
  /** How long a claim protects a delivery being handled. @defaultValue `600_000` (10 min) */
  claimLeaseMs?: number;
  /** Retry-After (seconds) of the 429 answer to a copy that arrives mid-handling. @defaultValue `10` */
  inFlightRetryAfterSeconds?: number;
  /** HMAC implementation. @defaultValue `'auto'` */
  crypto?: HmacBackendName | 'auto';
}

/** One incoming request, as an adapter hands it over. */
export interface WebhookRequest {
  /** The raw body exactly as received. */
  body: WebhookBody;
  /** Request headers in any case. */
  headers: WebhookHeaderSource;
  /** When the request arrived (ms since the epoch). @defaultValue the clock's now */
  receivedAtMs?: number;
}

/** The framework-neutral receiver. Adapters turn requests into {@link WebhookRequest}s. */
export interface WebhookReceiver {
  /** Runs the whole flow for one request and returns the answer. Never throws. */
  handle(request: WebhookRequest): Promise<WebhookResponse>;
  /** The answer for an error met before {@link WebhookReceiver.handle} (reported as an event too). */
  respondToError(error: unknown): WebhookResponse;
  /** Resolves when every handler started in `respondEarly` mode has finished. */
  drain(): Promise<void>;
  /** The verifier in use. */
  readonly verifier: WebhookVerifier;
}

function checkReceiverOptions<T>(options: WebhookReceiverOptions<T>): void {
  const fail = (option: string, what: string): never => {
    throw new ConfigurationError({ option, message: `Option "${option}" ${what}.` });
  };
  if (typeof options.handler !== 'function') fail('handler', 'must be a function');
  for (const name of ['open', 'fetchRef', 'onDecryptFailure', 'onEvent'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') fail(name, 'must be a function');
  }
  const lease = options.claimLeaseMs;
  if (lease !== undefined && !(Number.isSafeInteger(lease) && lease > 0))
    fail('claimLeaseMs', 'must be a positive integer');
  const retry = options.inFlightRetryAfterSeconds;
  if (retry !== undefined && !(Number.isSafeInteger(retry) && retry >= 0)) {
    fail('inFlightRetryAfterSeconds', 'must be a non-negative integer');
  }
}

type ClaimStep = { readonly token: string } | { readonly response: WebhookResponse };

class Receiver<T> implements WebhookReceiver {
  readonly verifier: WebhookVerifier;
  readonly #o: WebhookReceiverOptions<T>;
  readonly #dedup: DedupStore;
  readonly #leaseMs: number;
  readonly #background = new Set<Promise<void>>();

  constructor(options: WebhookReceiverOptions<T>) {
    const clock: Clock = options.clock ?? systemClock;
    this.#o = options;
    this.verifier = createWebhookVerifier({
      secret: options.secret,
      clock,
      ...(options.toleranceMs === undefined ? {} : { toleranceMs: options.toleranceMs }),
      ...(options.crypto === undefined ? {} : { crypto: options.crypto }),
    });
    this.#dedup = options.dedup ?? createMemoryDedupStore({ clock });
    this.#leaseMs = options.claimLeaseMs ?? DEFAULT_WEBHOOK_OPTIONS.claimLeaseMs;
  }

  async handle(request: WebhookRequest): Promise<WebhookResponse> {
    let verified: VerifiedSignature;
    let delivery: WebhookDelivery;
    try {
      verified = await this.verifier.verifySignature(request);
      delivery = parseWebhookDelivery(verified.body);
    } catch (err) {
      return this.respondToError(err);
    }
    const { deliveryId } = verified;
    const claim = await this.#claim(deliveryId);
    if ('response' in claim) return claim.response;
    let payload = delivery as T;
    if (this.#o.open !== undefined) {
      const opened = await openDelivery(delivery, deliveryId, this.#o.open, this.#o.fetchRef);
      if (!opened.ok) {
        this.#emit(opened.event);
        await (opened.claim === 'complete'
          ? this.#complete(deliveryId, claim.token)
          : this.#release(deliveryId, claim.token));
        return opened.response;
      }
      payload = opened.payload;
    }
    const event: WebhookEvent<T> = {
      deliveryId,
      agentId: verified.agentId,
      timestamp: verified.timestamp,
      type: delivery.type,
      delivery,
      payload,
      secretIndex: verified.secretIndex,
    };
    if (this.#o.respondEarly === true) {
      const task = this.#run(event, claim.token, true).then(() => undefined);
      this.#background.add(task);
      void task.finally(() => this.#background.delete(task));
      return okResponse(deliveryId, 'accepted');
    }
    return this.#run(event, claim.token, false);
  }

  respondToError(error: unknown): WebhookResponse {
    if (isWebhookVerificationError(error)) this.#emit({ type: 'rejected', error });
    else if (isConfigurationError(error)) this.#emit({ type: 'configuration_error', error });
    return responseForError(error);
  }

  async drain(): Promise<void> {
    while (this.#background.size > 0) await Promise.allSettled([...this.#background]);
  }

  async #claim(deliveryId: string): Promise<ClaimStep> {
    let result;
    try {
      result = await this.#dedup.claim(deliveryId, this.#leaseMs);
    } catch (error) {
      this.#emit({ type: 'store_error', deliveryId, operation: 'claim', error });
      return {
        response: this.#retryLater(
          503,
          'WEBHOOK_STORE_UNAVAILABLE',
          DEFAULT_WEBHOOK_OPTIONS.storeRetryAfterSeconds,
        ),
      };
    }
    if (result.status === 'claimed') return { token: result.token };
    this.#emit({ type: 'duplicate', deliveryId, state: result.status });
    if (result.status === 'completed') return { response: okResponse(deliveryId, 'duplicate') };
    if (result.status === 'busy') {
      return {
        response: this.#retryLater(503, 'WEBHOOK_STORE_FULL', DEFAULT_WEBHOOK_OPTIONS.storeRetryAfterSeconds),
      };
    }
    const seconds = this.#o.inFlightRetryAfterSeconds ?? DEFAULT_WEBHOOK_OPTIONS.inFlightRetryAfterSeconds;
    return { response: this.#retryLater(429, 'WEBHOOK_DELIVERY_IN_PROGRESS', seconds) };
  }

  #retryLater(status: number, code: string, seconds: number): WebhookResponse {
    const message =
      status === 429
        ? 'This delivery is being handled by another request; retry later.'
        : 'The receiver cannot take this delivery right now; retry later.';
    return errorResponse(
      status,
      code,
      message,
      { retry_after_ms: seconds * 1000 },
      { 'retry-after': String(seconds) },
    );
  }

  async #run(event: WebhookEvent<T>, token: string, acknowledged: boolean): Promise<WebhookResponse> {
    try {
      await this.#o.handler(event);
    } catch (cause) {
      const error = new HandlerError({ message: 'The webhook handler threw.', event, cause });
      this.#emit({ type: 'handler_error', deliveryId: event.deliveryId, error, acknowledged });
      await this.#release(event.deliveryId, token);
      return errorResponse(500, error.code, 'The webhook handler failed; the delivery will be retried.');
    }
    await this.#complete(event.deliveryId, token);
    this.#emit({ type: 'handled', deliveryId: event.deliveryId, eventType: event.type });
    return okResponse(event.deliveryId, 'processed');
  }

  async #complete(deliveryId: string, token: string): Promise<void> {
    try {
      await this.#dedup.complete(deliveryId, token);
    } catch (error) {
      this.#emit({ type: 'store_error', deliveryId, operation: 'complete', error });
    }
  }

  async #release(deliveryId: string, token: string): Promise<void> {
    try {
      await this.#dedup.release(deliveryId, token);
    } catch (error) {
      this.#emit({ type: 'store_error', deliveryId, operation: 'release', error });
    }
  }

  #emit(event: WebhookReceiverEvent): void {
    // Listener errors must never change an answer or crash the process.
    try {
      if (event.type === 'decrypt_failure') this.#o.onDecryptFailure?.(event);
    } catch {
      /* ignored */
    }
    try {
      this.#o.onEvent?.(event);
    } catch {
      /* ignored */
    }
  }
}

/**
 * Creates the webhook receiver. Hand it to an adapter
 * (`createNodeHandler`, `createExpressMiddleware`, `createFastifyPlugin`,
 * `createFetchHandler`) or call {@link WebhookReceiver.handle} yourself.
 *
 * @throws {@link ConfigurationError} for a missing, short or padded secret or a bad `toleranceMs`.
 * @example
 * ```ts
 * const receiver = createWebhookReceiver({
 *   secret: process.env.WEBHOOK_SECRET!,
 *   open: (envelope) => agentKeys.open(envelope),
 *   fetchRef: createRefFetcher({ baseUrl, agentToken }),
 *   onDecryptFailure: (e) => log.warn({ deliveryId: e.deliveryId, reason: e.reason }),
 *   handler: async ({ type, payload }) => { if (type === 'message.new') await reply(payload); },
 * });
 * ```
 */
export function createWebhookReceiver<T = WebhookDelivery>(
  options: WebhookReceiverOptions<T>,
): WebhookReceiver {
  checkReceiverOptions(options);
  return new Receiver(options);
}
