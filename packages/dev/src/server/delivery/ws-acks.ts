/**
 * Acknowledged WebSocket delivery (a gap decision; see docs/decisions.md
 * "WebSocket delivery acknowledgements"). On a session where the agent asked
 * for acks, a delivery sent to it moves from the queue into the agent's
 * `unacked` window and stays pending until an `ack` frame names it. When the
 * session ends, its unacknowledged deliveries go back to the front of the
 * queue, in order, and are sent first on the next session. An ack that is
 * overdue makes the engine send the delivery again on the same session; after
 * `maxAttempts` sends it is logged `failed` (`ack_timeout`) and dropped, as a
 * webhook delivery is after its last permanent failure.
 *
 * @module
 */
import type { AttemptLog } from './attempt-log.js';
import { bodyOf } from './body.js';
import type { ResolvedEngineOptions } from './options.js';
import type { AgentState, PendingDelivery } from './queue.js';

/**
 * Writes one delivery as an event frame to the agent's open WebSocket: the
 * delivery body plus `delivery_id` (and `redelivered: true` once sent
 * before). False when no socket took it.
 */
export function writeWsFrame(
  opts: ResolvedEngineOptions,
  agentId: string,
  delivery: PendingDelivery,
  sessionId?: number,
): boolean {
  const frame: Record<string, unknown> = {
    ...bodyOf(delivery.event, delivery.ref),
    delivery_id: delivery.deliveryId,
  };
  if (delivery.attempts > 0) frame['redelivered'] = true;
  try {
    // Session 0 stands for "the agent's socket" (a target that names no sessions).
    return sessionId === undefined || sessionId === 0
      ? opts.target.sendWs(agentId, frame)
      : opts.target.sendWs(agentId, frame, sessionId);
  } catch {
    return false;
  }
}

/** What the ack window needs from the pump. */
export interface WsAckDeps {
  readonly opts: ResolvedEngineOptions;
  /** Where each frame sent and what became of it is kept (dev console). */
  readonly attempts: AttemptLog;
  /** Logs a final status for a delivery no longer in the queue and releases its object. */
  readonly complete: (
    state: AgentState,
    delivery: PendingDelivery,
    status: 'delivered' | 'failed',
    errorClass?: string,
  ) => void;
  /** Sends from the head of the queue again (the window may have room now). */
  readonly pump: (state: AgentState) => void;
  /** Re-arms the 24 h expiry timer to the current head of the queue. */
  readonly armExpiry: (state: AgentState) => void;
}

/** The per-agent window of sent, unacknowledged WebSocket deliveries. */
export class WsAckWindow {
  readonly #d: WsAckDeps;

  constructor(deps: WsAckDeps) {
    this.#d = deps;
  }

  /**
   * Sends the head of the queue on session `sessionId` and moves it into the
   * window. False when the window is full or the socket did not take the frame.
   */
  sendHead(state: AgentState, head: PendingDelivery, sessionId: number): boolean {
    if (state.unacked.size >= this.#d.opts.wsAck.window) return false;
    if (!this.#write(state.agentId, head, sessionId)) return false;
    state.queue.shift();
    head.attempts++;
    head.sentOn = sessionId;
    head.sentAtMs = this.#d.opts.clock.now();
    state.unacked.set(head.deliveryId, head);
    this.#d.attempts.addWs(state.agentId, head.deliveryId, sessionId, head.sentAtMs, true);
    this.#observe('attempt_started', state.agentId, head.deliveryId);
    this.#ensureTimer(state);
    this.#d.armExpiry(state);
    return true;
  }

  /** Logs each acknowledged delivery `delivered`; returns how many were pending. */
  ack(state: AgentState, deliveryIds: readonly string[]): number {
    let acked = 0;
    for (const id of deliveryIds) {
      const delivery = state.unacked.get(id);
      if (delivery === undefined) continue;
      state.unacked.delete(id);
      this.#d.attempts.endWs(id, 'acked', this.#d.opts.clock.now());
      this.#observe('attempt_finished', state.agentId, id);
      this.#d.complete(state, delivery, 'delivered');
      acked++;
    }
    if (acked > 0) {
      if (state.unacked.size === 0) this.stop(state);
      this.#d.pump(state);
    }
    return acked;
  }

  /**
   * Puts the unacknowledged deliveries of `sessionId` (all of them when
   * undefined) back in front of the queue, in the order they were sent.
   * Returns how many.
   */
  requeue(state: AgentState, sessionId?: number): number {
    const back: PendingDelivery[] = [];
    for (const delivery of state.unacked.values()) {
      if (sessionId !== undefined && delivery.sentOn !== sessionId) continue;
      delivery.sentOn = undefined;
      back.push(delivery);
    }
    if (back.length === 0) return 0;
    const now = this.#d.opts.clock.now();
    for (const delivery of back) {
      state.unacked.delete(delivery.deliveryId);
      this.#d.attempts.endWs(delivery.deliveryId, 'requeued', now);
    }
    state.queue.unshiftAll(back);
    if (state.unacked.size === 0) this.stop(state);
    this.#d.armExpiry(state);
    this.#d.opts.log('delivery.requeued', { agent_id: state.agentId, count: back.length });
    this.#d.opts.observe({ change: 'requeued', agentId: state.agentId });
    return back.length;
  }

  /** Cancels the ack timer. */
  stop(state: AgentState): void {
    if (state.ackTimer !== undefined) this.#d.opts.clock.clearTimeout(state.ackTimer);
    state.ackTimer = undefined;
  }

  #observe(change: 'attempt_started' | 'attempt_finished', agentId: string, deliveryId: string): void {
    this.#d.opts.observe({ change, agentId, deliveryId });
  }

  #write(agentId: string, delivery: PendingDelivery, sessionId: number | undefined): boolean {
    return writeWsFrame(this.#d.opts, agentId, delivery, sessionId);
  }

  /**
   * Arms the timer for the earliest deadline unless it is armed: a timer that
   * fires early finds nothing overdue and re-arms, so acks never rescan.
   */
  #ensureTimer(state: AgentState): void {
    if (state.ackTimer !== undefined) return;
    let oldest = Infinity;
    for (const delivery of state.unacked.values()) oldest = Math.min(oldest, delivery.sentAtMs);
    if (oldest === Infinity) return;
    const { clock, wsAck } = this.#d.opts;
    state.ackTimer = clock.setTimeout(
      () => {
        state.ackTimer = undefined;
        this.#overdue(state);
      },
      Math.max(0, oldest + wsAck.timeoutMs - clock.now()),
      { background: true },
    );
  }

  /** Sends overdue deliveries again, or gives them up after `maxAttempts` sends. */
  #overdue(state: AgentState): void {
    const { clock, wsAck, log } = this.#d.opts;
    const now = clock.now();
    for (const delivery of [...state.unacked.values()]) {
      if (delivery.sentAtMs + wsAck.timeoutMs > now) continue;
      const fields = {
        agent_id: state.agentId,
        delivery_id: delivery.deliveryId,
        attempt: delivery.attempts,
      };
      this.#d.attempts.endWs(delivery.deliveryId, 'ack_timeout', now);
      this.#observe('attempt_finished', state.agentId, delivery.deliveryId);
      if (delivery.attempts >= wsAck.maxAttempts) {
        state.unacked.delete(delivery.deliveryId);
        log('delivery.ack_timeout', fields);
        this.#d.complete(state, delivery, 'failed', 'ack_timeout');
        continue;
      }
      // Sent again on the same session; a closed session requeues it instead.
      delivery.sentAtMs = now;
      if (this.#write(state.agentId, delivery, delivery.sentOn)) {
        delivery.attempts++;
        this.#d.attempts.addWs(state.agentId, delivery.deliveryId, delivery.sentOn ?? 0, now, true);
        this.#observe('attempt_started', state.agentId, delivery.deliveryId);
        log('delivery.resent', fields);
      }
    }
    this.#ensureTimer(state);
    this.#d.pump(state);
  }
}
