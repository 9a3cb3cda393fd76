/**
 * Options of the webhook receiver and their checks.
 *
 * @module
 */
import type { Clock } from '../core/clock.js';
import { ConfigurationError } from '../core/errors/configuration-error.js';
import type { DedupStore } from './dedup/types.js';
import type { WebhookDelivery } from './delivery.js';
import type { DecryptFailureEvent, WebhookEvent, WebhookReceiverEvent } from './events.js';
import type { HmacBackendName } from './hmac.js';
import type { OpenEnvelope } from './open-step.js';
import type { RefFetcher } from './refs/fetcher.js';
import type { WebhookSecretInput } from './secrets.js';

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
   * trigger a retry: the message is only reported (`handlerError` with
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

/**
 * Checks the options at construction.
 *
 * @throws {@link index!ConfigurationError | ConfigurationError} naming the option at fault.
 */
export function checkReceiverOptions<T>(options: WebhookReceiverOptions<T>): void {
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
