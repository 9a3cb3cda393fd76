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
import { HandlerError } from '../core/errors/handler-error.js';
import { isConfigurationError, isWebhookVerificationError } from '../core/errors/guards.js';
import { DEFAULT_WEBHOOK_OPTIONS } from './constants.js';
import { createMemoryDedupStore } from './dedup/memory.js';
import type { DedupStore } from './dedup/types.js';
import { parseWebhookDelivery, type WebhookDelivery } from './delivery.js';
import type { WebhookEvent, WebhookReceiverEvent } from './events.js';
import { checkReceiverOptions, type WebhookReceiverOptions } from './receiver-options.js';
import type { WebhookHeaderSource } from './headers.js';
import { openDelivery, type OpenOutcome } from './open-step.js';
import { errorResponse, okResponse, responseForError, type WebhookResponse } from './responses.js';
import { createWebhookVerifier, type VerifiedSignature, type WebhookVerifier } from './verify.js';
import type { WebhookBody } from './verify-input.js';

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

type ClaimStep = { readonly token: string } | { readonly response: WebhookResponse };

/**
 * Wraps the open step (fetch the `ref`, open the envelope) of a claimed
 * delivery: must call `open` once and return what it resolves with. The
 * Agent's pipeline uses it to trace the step (docs/observability.md).
 */
export type AroundOpen = <T>(
  delivery: WebhookDelivery,
  deliveryId: string,
  open: () => Promise<OpenOutcome<T>>,
) => Promise<OpenOutcome<T>>;

class Receiver<T> implements WebhookReceiver {
  readonly verifier: WebhookVerifier;
  readonly #o: WebhookReceiverOptions<T>;
  readonly #dedup: DedupStore;
  readonly #leaseMs: number;
  readonly #background = new Set<Promise<void>>();
  readonly #aroundOpen: AroundOpen | undefined;

  constructor(options: WebhookReceiverOptions<T>, aroundOpen?: AroundOpen) {
    const clock: Clock = options.clock ?? systemClock;
    this.#o = options;
    this.#aroundOpen = aroundOpen;
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
      // On node:crypto the check is synchronous: no promise to wait for.
      const v = this.verifier;
      verified = v.synchronous ? v.verifySignatureSync(request) : await v.verifySignature(request);
      delivery = parseWebhookDelivery(verified.body);
    } catch (err) {
      return this.respondToError(err);
    }
    const { deliveryId } = verified;
    const claim = await this.#claim(deliveryId);
    if ('response' in claim) return claim.response;
    let payload = delivery as T;
    const open = this.#o.open;
    if (open !== undefined) {
      const step = (): Promise<OpenOutcome<T>> => openDelivery(delivery, deliveryId, open, this.#o.fetchRef);
      const opened = await (this.#aroundOpen === undefined
        ? step()
        : this.#aroundOpen(delivery, deliveryId, step));
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
    else if (isConfigurationError(error)) this.#emit({ type: 'configurationError', error });
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
      this.#emit({ type: 'storeError', deliveryId, operation: 'claim', error });
      return {
        response: this.#retryLater(
          503,
          'WEBHOOK_STORE_UNAVAILABLE',
          DEFAULT_WEBHOOK_OPTIONS.storeRetryAfterSeconds,
        ),
      };
    }
    if (result.status === 'claimed') return { token: result.token };
    if (result.status === 'recovering') {
      // The store lost its memory and waits for every replica to write back what it handled.
      return {
        response: this.#retryLater(
          503,
          'WEBHOOK_STORE_UNAVAILABLE',
          DEFAULT_WEBHOOK_OPTIONS.storeRetryAfterSeconds,
        ),
      };
    }
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
      this.#emit({ type: 'handlerError', deliveryId: event.deliveryId, error, acknowledged });
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
      this.#emit({ type: 'storeError', deliveryId, operation: 'complete', error });
    }
  }

  async #release(deliveryId: string, token: string): Promise<void> {
    try {
      await this.#dedup.release(deliveryId, token);
    } catch (error) {
      this.#emit({ type: 'storeError', deliveryId, operation: 'release', error });
    }
  }

  #emit(event: WebhookReceiverEvent): void {
    // Listener errors must never change an answer or crash the process.
    try {
      if (event.type === 'decryptFailure') this.#o.onDecryptFailure?.(event);
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
 * @throws {@link index!ConfigurationError | ConfigurationError} for a missing, short or padded secret or a bad `toleranceMs`.
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

/**
 * {@link createWebhookReceiver} whose open step runs inside `aroundOpen`
 * (the Agent's pipeline: its `open` span). Not part of the `./webhook` entry.
 *
 * @throws {@link index!ConfigurationError | ConfigurationError} as {@link createWebhookReceiver}.
 */
export function createWebhookReceiverAroundOpen<T>(
  options: WebhookReceiverOptions<T>,
  aroundOpen: AroundOpen,
): WebhookReceiver {
  checkReceiverOptions(options);
  return new Receiver(options, aroundOpen);
}
