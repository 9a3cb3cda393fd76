/**
 * The delivery engine: per-agent FIFO queues with one delivery in flight,
 * webhook attempts on the retry schedule, `unreachable` and recovery, the
 * 24 h pending limit, delivery logs and oversize objects. Every wait runs on
 * the injected clock; the network sits behind a {@link WebhookSender}.
 *
 * @module
 */
import type { Clock } from '../../core/clock.js';
import type { DeliveryLogEntry } from '../../core/protocol/delivery-log.js';
import { createWebhookSigner } from '../../webhook/sign.js';
import { prepareRef } from './body.js';
import { uuidV7 } from './ids.js';
import { DeliveryLogBook } from './logs.js';
import { ObjectStore } from './objects.js';
import { AgentPump, type Hook } from './pump.js';
import { newAgentState, type AgentState } from './queue.js';
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
  readonly #pump: AgentPump;
  #closed = false;

  constructor(opts: ResolvedEngineOptions) {
    this.#opts = opts;
    this.#clock = opts.clock;
    this.#target = opts.target;
    this.#sender = opts.sender;
    this.#logs = new DeliveryLogBook(opts.clock);
    this.#objects = new ObjectStore(opts.clock);
    this.#pump = new AgentPump({
      opts,
      agents: this.#agents,
      hooks: this.#hooks,
      logs: this.#logs,
      objects: this.#objects,
      isClosed: () => this.#closed,
    });
  }

  enqueue(agentId: string, event: OutboundEvent): void {
    const fields = { agent_id: agentId, event_type: event.type };
    if (this.#closed) return this.#opts.log('delivery.dropped', { ...fields, reason: 'engine_closed' });
    if (this.#target.mode(agentId) === undefined) {
      return this.#opts.log('delivery.dropped', { ...fields, reason: 'unknown_agent' });
    }
    const prepared = prepareRef(event, agentId, this.#objects, this.#opts.maxInlineBytes);
    if (!prepared.ok) return this.#opts.log('delivery.dropped', { ...fields, reason: prepared.reason });
    const now = this.#clock.now();
    const state = this.#state(agentId);
    state.queue.push({
      deliveryId: uuidV7(now),
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
    this.#pump.armExpiry(state);
    this.#pump.pump(state);
  }

  onAgentConnected(agentId: string): void {
    const state = this.#agents.get(agentId);
    if (state === undefined) return;
    // A new session replaces every older one: what they left unacknowledged goes first.
    this.#pump.acks.requeue(state);
    this.#pump.pump(state);
  }

  onAgentDisconnected(agentId: string, sessionId: number): void {
    const state = this.#agents.get(agentId);
    if (state !== undefined) this.#pump.acks.requeue(state, sessionId);
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
    this.#objects.forgetAgent(agentId);
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
