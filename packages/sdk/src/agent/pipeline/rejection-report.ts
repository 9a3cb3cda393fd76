/**
 * Refused webhook requests, made loud: a wrong secret answers every delivery
 * 401, the service does not retry it, and the event is lost, so the first
 * refusal of each kind is logged at error level with a hint naming the likely
 * cause, and goes to the agent's `error` listeners. Repeats are counted and
 * summed up once per window on the injected clock (no timer: the summary is
 * written with the next refusal after the window).
 *
 * @module
 */
import type { Clock } from '../../core/clock.js';
import type { WebhookVerificationError } from '../../core/errors/webhook-verification-error.js';
import type { Logger } from '../../core/logger.js';

/** One summary line per code at most this often, ms. */
export const REJECTION_LOG_WINDOW_MS = 60_000;

/** What to check for each refusal code. */
export function rejectionHint(code: string): string {
  switch (code) {
    case 'WEBHOOK_SIGNATURE_INVALID':
      return 'check AMS_WEBHOOK_SECRET: the service signed with another secret; refused deliveries are not retried and are lost';
    case 'WEBHOOK_TIMESTAMP_SKEW':
      return "check this machine's clock (NTP): the signing time is outside the tolerance";
    case 'WEBHOOK_PAYLOAD_TOO_LARGE':
      return 'a proxy or body-size limit in front of the webhook route cut or refused the body';
    default:
      return 'is a body parser (express.json(), a framework body hook) running before the webhook route? the receiver needs the raw body and the X-Service-* headers';
  }
}

interface Tally {
  /** Refusals since the last line written. */
  unreported: number;
  /** When the last line was written. */
  lastLogMs: number;
}

/** Reports refusals; one per agent webhook receiver. */
export class RejectionReport {
  readonly #tallies = new Map<string, Tally>();
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #notify: (error: WebhookVerificationError) => void;

  /** @param notify - gives the error to the agent's `error` listeners (called for every refusal). */
  constructor(clock: Clock, logger: Logger, notify: (error: WebhookVerificationError) => void) {
    this.#clock = clock;
    this.#logger = logger;
    this.#notify = notify;
  }

  /** One refused request. */
  rejected(error: WebhookVerificationError): void {
    this.#notify(error);
    const now = this.#clock.now();
    const tally = this.#tallies.get(error.code);
    const fields = { code: error.code, status: error.status ?? 'none' };
    if (tally === undefined) {
      this.#tallies.set(error.code, { unreported: 0, lastLogMs: now });
      this.#logger.error(
        `a webhook delivery was refused (${error.code}): ${rejectionHint(error.code)}`,
        fields,
      );
      return;
    }
    tally.unreported += 1;
    if (now - tally.lastLogMs < REJECTION_LOG_WINDOW_MS) return;
    const count = tally.unreported;
    const minutes = Math.max(1, Math.round((now - tally.lastLogMs) / 60_000));
    tally.unreported = 0;
    tally.lastLogMs = now;
    this.#logger.error(
      `${count} webhook deliveries refused (${error.code}) in the last ${minutes} min: ${rejectionHint(error.code)}`,
      { ...fields, count },
    );
  }
}
