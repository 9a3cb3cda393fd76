/**
 * Injected webhook failures (dev console, control API): the next N deliveries
 * to an agent's webhook are answered by the server itself with a chosen
 * status instead of being sent, so the retry schedule, `unreachable` and
 * recovery can be watched without touching the receiver. Keyed by the
 * registered webhook URL. A `'timeout'` fault answers at once as a timed-out
 * attempt (the engine does not wait the real deadline).
 *
 * @module
 */
import type { WebhookSendRequest, WebhookSendResult, WebhookSender } from './webhook-sender.js';

/**
 * What a fault answers with: 429 and 5xx are temporary failures (retried), 408 a
 * permanent one; `'timeout'` is no answer at all (a temporary failure, error class `timeout`).
 */
export type WebhookFaultStatus = 408 | 429 | 500 | 502 | 503 | 504 | 'timeout';

/** Every {@link WebhookFaultStatus}. */
export const WEBHOOK_FAULT_STATUSES: readonly WebhookFaultStatus[] = [
  408,
  429,
  500,
  502,
  503,
  504,
  'timeout',
];

/** Failures waiting to be injected, per webhook URL. */
export class WebhookFaults {
  readonly #pending = new Map<string, { status: WebhookFaultStatus; remaining: number }>();

  /** The next `count` deliveries to `url` are answered `status` (replaces what was set; 0 clears). */
  set(url: string, status: WebhookFaultStatus, count: number): void {
    if (count <= 0) this.#pending.delete(url);
    else this.#pending.set(url, { status, remaining: count });
  }

  /** How many injected failures are left for `url`. */
  remaining(url: string): number {
    return this.#pending.get(url)?.remaining ?? 0;
  }

  /** A sender that answers with the pending fault, else sends through `inner`. */
  wrap(inner: WebhookSender): WebhookSender {
    return {
      send: (req: WebhookSendRequest): Promise<WebhookSendResult> => {
        const fault = this.#pending.get(req.url);
        if (fault === undefined) return inner.send(req);
        fault.remaining -= 1;
        if (fault.remaining <= 0) this.#pending.delete(req.url);
        return Promise.resolve(
          fault.status === 'timeout'
            ? { kind: 'timeout' }
            : { kind: 'response', status: fault.status, retryAfter: undefined },
        );
      },
      close: () => inner.close(),
    };
  }
}
