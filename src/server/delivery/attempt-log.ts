/**
 * Each webhook attempt of recent deliveries (dev console): when it started,
 * what came back (status code, or the error class of no answer), how long it
 * took, and when the next attempt is due on the retry schedule. The delivery
 * log keeps one entry per delivery; this keeps its attempts, for the last
 * {@link MAX_ATTEMPT_DELIVERIES} deliveries (oldest dropped first).
 *
 * @module
 */
import type { AttemptResult } from './attempt.js';

/** Deliveries whose attempts are kept, across agents. */
export const MAX_ATTEMPT_DELIVERIES = 1_000;

/** One attempt (wire names). */
export interface DeliveryAttempt {
  /** 1, 2, … (a replay starts again at 1 after the attempts of the first run). */
  readonly attempt: number;
  /** ISO 8601, engine clock. */
  readonly started_at: string;
  /** The receiver's status, or null when it did not answer. */
  readonly status_code: number | null;
  readonly outcome: 'delivered' | 'permanent' | 'temporary' | 'throttled';
  readonly error_class: string | null;
  readonly latency_ms: number;
  /** When the next attempt is due (retry schedule or Retry-After), or null (no further attempt, or unreachable). */
  readonly next_attempt_at: string | null;
}

/** Attempts by delivery id. */
export class AttemptLog {
  readonly #byDelivery = new Map<
    string,
    { readonly agentId: string; readonly attempts: DeliveryAttempt[] }
  >();

  /** Records an attempt's result (a cancelled attempt is not recorded). */
  add(
    agentId: string,
    deliveryId: string,
    startedAtMs: number,
    nowMs: number,
    result: AttemptResult,
    nextDelayMs: number | undefined,
  ): void {
    if (result.kind === 'cancelled') return;
    let kept = this.#byDelivery.get(deliveryId);
    if (kept === undefined) {
      kept = { agentId, attempts: [] };
      this.#byDelivery.set(deliveryId, kept);
      if (this.#byDelivery.size > MAX_ATTEMPT_DELIVERIES) {
        const oldest = this.#byDelivery.keys().next().value;
        if (oldest !== undefined) this.#byDelivery.delete(oldest);
      }
    }
    kept.attempts.push({
      attempt: kept.attempts.length + 1,
      started_at: new Date(startedAtMs).toISOString(),
      status_code: result.kind === 'throttled' ? 429 : (result.status ?? null),
      outcome: result.kind,
      error_class: 'errorClass' in result ? result.errorClass : null,
      latency_ms: Math.max(0, nowMs - startedAtMs),
      next_attempt_at: nextDelayMs === undefined ? null : new Date(nowMs + nextDelayMs).toISOString(),
    });
  }

  /** The attempts of a delivery of `agentId` (empty when unknown or another agent's). */
  list(agentId: string, deliveryId: string): readonly DeliveryAttempt[] {
    const kept = this.#byDelivery.get(deliveryId);
    return kept?.agentId === agentId ? kept.attempts : [];
  }

  /** Drops an agent's attempts. */
  forget(agentId: string): void {
    for (const [id, kept] of this.#byDelivery) if (kept.agentId === agentId) this.#byDelivery.delete(id);
  }
}
