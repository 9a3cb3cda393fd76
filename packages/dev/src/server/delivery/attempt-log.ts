/**
 * Each attempt of recent deliveries (dev console). A webhook attempt: when it
 * started, what came back (status code, or the error class of no answer), how
 * long it took, and when the next attempt is due on the retry schedule. A
 * WebSocket attempt (one frame sent): when, on which connection, and what
 * became of it (`acked` after N ms, `requeued` because the connection closed,
 * `ack_timeout`, or `sent` on a session without acks). The delivery
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
  /** 1, 2, … across runs (a replay's first attempt follows the last one before it). */
  readonly attempt: number;
  /** ISO 8601, engine clock. */
  readonly started_at: string;
  /** The receiver's status, or null when it did not answer. */
  readonly status_code: number | null;
  readonly outcome: AttemptOutcomeName;
  readonly error_class: string | null;
  readonly latency_ms: number;
  /** When the next attempt is due (retry schedule or Retry-After), or null (no further attempt, or unreachable). */
  readonly next_attempt_at: string | null;
  /** How the attempt went out. */
  readonly channel: 'webhook' | 'websocket';
  /** The WebSocket connection's id (server-side number), null for a webhook attempt. */
  readonly connection: number | null;
  /**
   * Which run of the delivery id the attempt belongs to: 1 for the delivery,
   * 2 for its first replay (a duplicate the receiver should skip), and so on.
   */
  readonly run: number;
  /**
   * The HTTP headers a webhook attempt was sent with (the receiver contract's
   * signature, timestamp, delivery id, agent id; never the secret), null for
   * a WebSocket attempt (its frame carries the delivery body's fields).
   */
  readonly headers: Readonly<Record<string, string>> | null;
}

/**
 * What became of an attempt. Webhook: `delivered`, `permanent`, `temporary`,
 * `throttled`. WebSocket: `awaiting_ack` (still open), `acked`, `requeued`
 * (the connection closed first), `ack_timeout` (sent again or given up),
 * `sent` (a session without acks: delivered once written).
 */
export type AttemptOutcomeName =
  | 'delivered'
  | 'permanent'
  | 'temporary'
  | 'throttled'
  | 'awaiting_ack'
  | 'acked'
  | 'requeued'
  | 'ack_timeout'
  | 'sent';

/** How a WebSocket attempt left the `awaiting_ack` state. */
export type WsAttemptEnd = 'acked' | 'requeued' | 'ack_timeout';

/** The attempts kept for one delivery id; `run` counts its replays (1 = not replayed). */
interface Kept {
  readonly agentId: string;
  readonly attempts: DeliveryAttempt[];
  run: number;
}

/** Attempts by delivery id. */
export class AttemptLog {
  readonly #byDelivery = new Map<string, Kept>();

  /** Records an attempt's result (a cancelled attempt is not recorded). */
  add(
    agentId: string,
    deliveryId: string,
    startedAtMs: number,
    nowMs: number,
    result: AttemptResult,
    nextDelayMs: number | undefined,
    headers?: Readonly<Record<string, string>>,
  ): void {
    if (result.kind === 'cancelled') return;
    const kept = this.#kept(agentId, deliveryId);
    kept.attempts.push({
      attempt: kept.attempts.length + 1,
      started_at: new Date(startedAtMs).toISOString(),
      status_code: result.kind === 'throttled' ? 429 : (result.status ?? null),
      outcome: result.kind,
      error_class: 'errorClass' in result ? result.errorClass : null,
      latency_ms: Math.max(0, nowMs - startedAtMs),
      next_attempt_at: nextDelayMs === undefined ? null : new Date(nowMs + nextDelayMs).toISOString(),
      channel: 'webhook',
      connection: null,
      run: kept.run,
      headers: headers ?? null,
    });
  }

  /**
   * Records a WebSocket frame sent on `connection`: `awaiting_ack` until
   * {@link AttemptLog.endWs}, or `sent` at once on a session without acks.
   */
  addWs(agentId: string, deliveryId: string, connection: number, nowMs: number, acks: boolean): void {
    const kept = this.#kept(agentId, deliveryId);
    kept.attempts.push({
      attempt: kept.attempts.length + 1,
      started_at: new Date(nowMs).toISOString(),
      status_code: null,
      outcome: acks ? 'awaiting_ack' : 'sent',
      error_class: null,
      latency_ms: 0,
      next_attempt_at: null,
      channel: 'websocket',
      connection,
      run: kept.run,
      headers: null,
    });
  }

  /** Ends the delivery's open WebSocket attempt (the last one, when `awaiting_ack`). */
  endWs(deliveryId: string, end: WsAttemptEnd, nowMs: number): void {
    const attempts = this.#byDelivery.get(deliveryId)?.attempts;
    const last = attempts?.at(-1);
    if (attempts === undefined || last === undefined || last.outcome !== 'awaiting_ack') return;
    attempts[attempts.length - 1] = {
      ...last,
      outcome: end,
      error_class: end === 'requeued' ? 'connection_closed' : end === 'ack_timeout' ? 'ack_timeout' : null,
      latency_ms: Math.max(0, nowMs - Date.parse(last.started_at)),
    };
  }

  /** The delivery was queued again under its id (a replay): its next attempts belong to a new run. */
  replayed(agentId: string, deliveryId: string): void {
    this.#kept(agentId, deliveryId).run += 1;
  }

  #kept(agentId: string, deliveryId: string): Kept {
    let kept = this.#byDelivery.get(deliveryId);
    if (kept === undefined) {
      kept = { agentId, attempts: [], run: 1 };
      this.#byDelivery.set(deliveryId, kept);
      if (this.#byDelivery.size > MAX_ATTEMPT_DELIVERIES) {
        const oldest = this.#byDelivery.keys().next().value;
        if (oldest !== undefined) this.#byDelivery.delete(oldest);
      }
    }
    return kept;
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
