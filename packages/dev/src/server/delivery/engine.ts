/**
 * The delivery engine: per-agent FIFO queues with one delivery in flight,
 * webhook attempts on the retry schedule, `unreachable` and recovery, the
 * 24 h pending limit, delivery logs and oversize objects. Every wait runs on
 * the injected clock; the network sits behind a {@link WebhookSender}.
 *
 * @module
 */
import { releaseOwner } from './affinity.js';
import type { Clock } from 'agent-messaging-sdk/protocol';
import type { DeliveryLogEntry } from 'agent-messaging-sdk/protocol';
import { createWebhookSigner } from 'agent-messaging-sdk/protocol';
import { AttemptLog, type DeliveryAttempt } from './attempt-log.js';
import { prepareRef } from './body.js';
import { uuidV7 } from './ids.js';
import { DeliveryLogBook } from './logs.js';
import { ObjectStore } from './objects.js';
import { AgentPump, type Hook } from './pump.js';
import { newAgentState, type AgentState, type PendingDelivery } from './queue.js';
import type {
  AgentDeliveryTarget,
  DeliveryEngine,
  OutboundEvent,
  StoredObject,
  WebhookRegistration,
} from './types.js';
import type { ResolvedEngineOptions } from './options.js';
import type { WebhookSender } from './webhook-sender.js';

/** The engine as the reference server builds it: the contract plus `idle()`. */
export interface ReferenceDeliveryEngine extends DeliveryEngine {
  /** Resolves once no webhook attempt is in flight (tests, virtual time, shutdown). */
  idle(): Promise<void>;
  /**
   * Resolves once idle and no WebSocket delivery waits for its ack, or after
   * `timeoutMs` of real time (an agent that never acknowledges cannot hang a test).
   */
  settled(timeoutMs?: number): Promise<void>;
  /**
   * Queues a recent delivery again with the same delivery id (dev console:
   * the receiver should skip it as a duplicate). False when the delivery is
   * not among the last {@link MAX_REPLAYABLE}, is another agent's, or is
   * still queued (not yet delivered or failed).
   */
  replay(agentId: string, deliveryId: string): boolean;
  /** The attempts (webhook and WebSocket) of a recent delivery of the agent (dev console). */
  attempts(agentId: string, deliveryId: string): readonly DeliveryAttempt[];
  /** The agent's deliveries not yet delivered or failed: sent and awaiting an ack first, then the queue in order (dev console). */
  pending(agentId: string): readonly PendingView[];
  /** A recent delivery of the agent as the service handled it (dev console's inspector), or undefined. */
  inspect(agentId: string, deliveryId: string): DeliveryView | undefined;
  /** The recent deliveries of a conversation, to every agent, in the order they were queued (dev console's timeline). */
  conversationDeliveries(conversationId: string): readonly DeliveryView[];
}

/**
 * One recent delivery as the service handled it (wire names, dev console):
 * what it carried (the sealed envelope and its metadata, never a plaintext:
 * the server has none), every attempt and every final status of its id.
 */
export interface DeliveryView {
  readonly delivery_id: string;
  readonly agent_id: string;
  readonly event_type: string;
  readonly conversation_id: string;
  readonly sender_id: string;
  /** When the event was created (the delivery body's `metadata.created_at`). */
  readonly created_at: string;
  /** When the delivery was first queued (engine clock). */
  readonly queued_at: string;
  /** The message the envelope carries, when it is one. */
  readonly message_id: string | null;
  /** The sealed envelope as the service relays it (standard base64). */
  readonly wire_envelope: string;
  /** Times it was replayed under the same id (each replay is a duplicate the receiver should skip). */
  readonly replays: number;
  /** Its state while pending (`queued`, `retrying`, `awaiting_ack`, `unreachable`), else null. */
  readonly pending_state: PendingView['state'] | null;
  /** Every final status of the id, oldest first (one per run that ended). */
  readonly outcomes: readonly DeliveryLogEntry[];
  readonly attempts: readonly DeliveryAttempt[];
}

/** A delivery still pending (wire names, dev console). */
export interface PendingView {
  readonly delivery_id: string;
  readonly event_type: string;
  /** `queued` (not tried yet), `retrying` (waiting for the retry schedule), `awaiting_ack` (sent on the WebSocket), `unreachable`. */
  readonly state: 'queued' | 'retrying' | 'awaiting_ack' | 'unreachable';
  readonly attempt_count: number;
  readonly created_at: string;
}

/** Deliveries kept for {@link ReferenceDeliveryEngine.replay}, across agents (oldest dropped first). */
export const MAX_REPLAYABLE = 1_000;

/** A recent delivery kept for replay; `queued` while it (or its replay) has not reached delivered or failed. */
interface Replayable {
  readonly agentId: string;
  readonly event: OutboundEvent;
  readonly queuedAtMs: number;
  queued: boolean;
  replays: number;
}

/** The implementation behind `createDeliveryEngine`. */
export class Engine implements ReferenceDeliveryEngine {
  readonly #clock: Clock;
  readonly #target: AgentDeliveryTarget;
  readonly #opts: ResolvedEngineOptions;
  readonly #sender: WebhookSender;
  readonly #agents = new Map<string, AgentState>();
  readonly #hooks = new Map<string, Hook>();
  readonly #logs: DeliveryLogBook;
  readonly #objects: ObjectStore;
  readonly #attempts = new AttemptLog();
  readonly #pump: AgentPump;
  /** Recent deliveries by id, for replay (insertion order: oldest first). */
  readonly #replayable = new Map<string, Replayable>();
  #closed = false;

  constructor(opts: ResolvedEngineOptions) {
    this.#opts = opts;
    this.#clock = opts.clock;
    this.#target = opts.target;
    this.#sender = opts.sender;
    this.#logs = new DeliveryLogBook(opts.clock, (input) => {
      // `unreachable` stays queued; delivered and failed left the queue.
      const kept = this.#replayable.get(input.deliveryId);
      if (kept !== undefined && input.status !== 'unreachable') kept.queued = false;
    });
    this.#objects = new ObjectStore(opts.clock);
    this.#pump = new AgentPump({
      opts,
      agents: this.#agents,
      hooks: this.#hooks,
      logs: this.#logs,
      attempts: this.#attempts,
      objects: this.#objects,
      isClosed: () => this.#closed,
    });
  }

  enqueue(agentId: string, event: OutboundEvent): void {
    this.#push(agentId, event, undefined);
  }

  replay(agentId: string, deliveryId: string): boolean {
    const kept = this.#replayable.get(deliveryId);
    // Only a delivery that left the queue: one id is never queued twice at once.
    if (kept?.agentId !== agentId || kept.queued) return false;
    this.#opts.log('delivery.replayed', { agent_id: agentId, delivery_id: deliveryId });
    this.#attempts.replayed(agentId, deliveryId);
    kept.queued = this.#push(agentId, kept.event, deliveryId);
    if (kept.queued) kept.replays += 1;
    return kept.queued;
  }

  /** Queues an event (under a new delivery id, or `replayOf`'s); false when it was dropped. */
  #push(agentId: string, event: OutboundEvent, replayOf: string | undefined): boolean {
    const fields = { agent_id: agentId, event_type: event.type };
    const drop = (reason: string): false => (
      this.#opts.log('delivery.dropped', { ...fields, reason }),
      false
    );
    if (this.#closed) return drop('engine_closed');
    if (this.#target.mode(agentId) === undefined) return drop('unknown_agent');
    const prepared = prepareRef(event, agentId, this.#objects, this.#opts.maxInlineBytes);
    if (!prepared.ok) return drop(prepared.reason);
    const now = this.#clock.now();
    const state = this.#state(agentId);
    const deliveryId = replayOf ?? uuidV7(now);
    if (replayOf === undefined) this.#remember(deliveryId, agentId, event, now);
    state.queue.push({
      deliveryId,
      event,
      ref: prepared.ref,
      bytes: undefined,
      createdAtMs: now,
      expiresAtMs: now + this.#opts.pendingTtlMs,
      attempts: 0,
      failures: 0,
      loggedUnreachable: false,
      sentOn: undefined,
      sentAtMs: 0,
    });
    this.#opts.observe({ change: 'queued', agentId, deliveryId, eventType: event.type });
    this.#pump.armExpiry(state);
    this.#pump.pump(state);
    return true;
  }

  #remember(deliveryId: string, agentId: string, event: OutboundEvent, now: number): void {
    this.#replayable.set(deliveryId, { agentId, event, queuedAtMs: now, queued: true, replays: 0 });
    if (this.#replayable.size > MAX_REPLAYABLE) {
      const oldest = this.#replayable.keys().next().value;
      if (oldest !== undefined) this.#replayable.delete(oldest);
    }
  }

  onAgentConnected(agentId: string): void {
    this.#opts.observe({ change: 'websocket_connected', agentId });
    const state = this.#agents.get(agentId);
    if (state === undefined) return;
    // What sessions that are gone left unacknowledged goes first. Without sharing a new
    // session replaced every older one; with it, the live siblings keep theirs.
    const live = new Set(this.#liveSessionIds(agentId));
    for (const owner of new Set(state.owners.values())) if (!live.has(owner)) releaseOwner(state, owner);
    const gone = new Set<number>();
    for (const d of state.unacked.values())
      if (d.sentOn !== undefined && !live.has(d.sentOn)) gone.add(d.sentOn);
    for (const sessionId of gone) this.#pump.acks.requeue(state, sessionId);
    this.#pump.pump(state);
  }

  onAgentDisconnected(agentId: string, sessionId: number): void {
    const state = this.#agents.get(agentId);
    if (state !== undefined) {
      // Its conversations move to the siblings, its unacknowledged deliveries first, in order.
      this.#pump.acks.requeue(state, sessionId);
      releaseOwner(state, sessionId);
      this.#pump.pump(state);
    }
    this.#opts.observe({ change: 'websocket_closed', agentId });
  }

  onAgentDraining(agentId: string): void {
    const state = this.#agents.get(agentId);
    // Idle conversations of the draining session move to its siblings now.
    if (state !== undefined) this.#pump.pump(state);
  }

  #liveSessionIds(agentId: string): number[] {
    const target = this.#opts.target;
    if (target.wsSessions !== undefined) return target.wsSessions(agentId).map((s) => s.id);
    const one = target.wsSession?.(agentId);
    return one === undefined ? [] : [one.id];
  }

  ack(agentId: string, deliveryIds: readonly string[]): number {
    const state = this.#agents.get(agentId);
    return state === undefined ? 0 : this.#pump.acks.ack(state, deliveryIds);
  }

  recover(agentId: string): { readonly pendingCount: number } {
    const state = this.#agents.get(agentId);
    if (state === undefined) return { pendingCount: 0 };
    state.status = 'ready';
    this.#pump.clearRetry(state);
    const head = state.queue.peek();
    if (head !== undefined) head.failures = 0;
    const pendingCount = state.queue.size + state.unacked.size;
    this.#opts.log('delivery.recovered', { agent_id: agentId, pending_count: pendingCount });
    this.#opts.observe({ change: 'recovered', agentId });
    this.#pump.pump(state);
    return { pendingCount };
  }

  connectionStatus(agentId: string): 'ready' | 'unreachable' {
    return this.#agents.get(agentId)?.status ?? 'ready';
  }

  setWebhook(agentId: string, registration: WebhookRegistration | null): void {
    if (registration === null) this.#hooks.delete(agentId);
    else
      this.#hooks.set(agentId, {
        registration,
        signer: createWebhookSigner({ secret: registration.secret }),
      });
    const state = this.#agents.get(agentId);
    if (state === undefined) return;
    // Leaving webhook mode: the WebSocket path has no schedule, so stop waiting for a retry.
    if (registration === null) this.#pump.clearRetry(state);
    // Entering it: what the WebSocket left unacknowledged is delivered by webhook, first.
    else this.#pump.acks.requeue(state);
    this.#pump.pump(state);
  }

  getWebhook(agentId: string): WebhookRegistration | undefined {
    return this.#hooks.get(agentId)?.registration;
  }

  logs(agentId: string, limit: number): DeliveryLogEntry[] {
    return this.#logs.list(agentId, limit);
  }

  attempts(agentId: string, deliveryId: string): readonly DeliveryAttempt[] {
    return this.#attempts.list(agentId, deliveryId);
  }

  pending(agentId: string): readonly PendingView[] {
    const state = this.#agents.get(agentId);
    if (state === undefined) return [];
    const view = (d: PendingDelivery, sent: boolean): PendingView => ({
      delivery_id: d.deliveryId,
      event_type: d.event.type,
      state: sent
        ? 'awaiting_ack'
        : state.status === 'unreachable'
          ? 'unreachable'
          : d.attempts > 0
            ? 'retrying'
            : 'queued',
      attempt_count: d.attempts,
      created_at: new Date(d.createdAtMs).toISOString(),
    });
    return [
      ...[...state.unacked.values()].map((d) => view(d, true)),
      ...state.queue.items().map((d) => view(d, false)),
    ];
  }

  inspect(agentId: string, deliveryId: string): DeliveryView | undefined {
    const kept = this.#replayable.get(deliveryId);
    return kept?.agentId === agentId ? this.#view(deliveryId, kept) : undefined;
  }

  conversationDeliveries(conversationId: string): readonly DeliveryView[] {
    const out: DeliveryView[] = [];
    for (const [id, kept] of this.#replayable)
      if (kept.event.metadata.conversation_id === conversationId) out.push(this.#view(id, kept));
    return out;
  }

  #view(deliveryId: string, kept: Replayable): DeliveryView {
    const { agentId, event } = kept;
    const pending = kept.queued
      ? this.pending(agentId).find((p) => p.delivery_id === deliveryId)?.state
      : undefined;
    return {
      delivery_id: deliveryId,
      agent_id: agentId,
      event_type: event.type,
      conversation_id: event.metadata.conversation_id,
      sender_id: event.metadata.sender_id,
      created_at: event.metadata.created_at,
      queued_at: new Date(kept.queuedAtMs).toISOString(),
      message_id: event.messageId ?? null,
      wire_envelope: event.wireEnvelope,
      replays: kept.replays,
      pending_state: pending ?? null,
      outcomes: this.#logs.entriesOf(agentId, deliveryId),
      attempts: this.#attempts.list(agentId, deliveryId),
    };
  }

  pendingCount(agentId: string): number {
    const state = this.#agents.get(agentId);
    return state === undefined ? 0 : state.queue.size + state.unacked.size;
  }

  getObject(objectKey: string): StoredObject | undefined {
    return this.#objects.get(objectKey);
  }

  forgetAgent(agentId: string): void {
    const state = this.#agents.get(agentId);
    if (state !== undefined) this.#pump.stop(state);
    this.#agents.delete(agentId);
    this.#hooks.delete(agentId);
    this.#logs.forget(agentId);
    this.#attempts.forget(agentId);
    this.#objects.forgetAgent(agentId);
    for (const [id, kept] of this.#replayable) if (kept.agentId === agentId) this.#replayable.delete(id);
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const state of this.#agents.values()) this.#pump.stop(state);
    await this.idle();
    if (this.#opts.ownsSender) await this.#sender.close();
  }

  idle(): Promise<void> {
    return this.#pump.idle();
  }

  async settled(timeoutMs = 2_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.idle();
      const waiting = [...this.#agents.values()].some((s) => s.unacked.size > 0);
      if (!waiting || Date.now() >= deadline) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  #state(agentId: string): AgentState {
    let state = this.#agents.get(agentId);
    if (state === undefined) {
      state = newAgentState(agentId);
      this.#agents.set(agentId, state);
    }
    return state;
  }
}
