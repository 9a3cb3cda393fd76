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
import { createWebhookSigner, type WebhookSigner } from '../../webhook/sign.js';
import { runAttempt, type AttemptResult } from './attempt.js';
import { bodyBytes, bodyOf, prepareRef } from './body.js';
import { uuidV7 } from './ids.js';
import { DeliveryLogBook } from './logs.js';
import { ObjectStore } from './objects.js';
import { newAgentState, type AgentState, type PendingDelivery } from './queue.js';
import { nextRetryDelayMs } from './schedule.js';
import type {
  AgentDeliveryTarget,
  DeliveryEngine,
  OutboundEvent,
  StoredObject,
  WebhookRegistration,
} from './types.js';
import type { ResolvedEngineOptions } from './options.js';
import type { WebhookSender } from './webhook-sender.js';

interface Hook {
  readonly registration: WebhookRegistration;
  readonly signer: WebhookSigner;
}

type FinalStatus = 'delivered' | 'failed';

/** The engine as the reference server builds it: the contract plus `idle()`. */
export interface ReferenceDeliveryEngine extends DeliveryEngine {
  /** Resolves once no webhook attempt is in flight (tests, virtual time, shutdown). */
  idle(): Promise<void>;
}

/** The implementation behind `createDeliveryEngine`. */
export class Engine implements ReferenceDeliveryEngine {
  readonly #clock: Clock;
  readonly #target: AgentDeliveryTarget;
  readonly #opts: ResolvedEngineOptions;
  readonly #sender: WebhookSender;
  readonly #agents = new Map<string, AgentState>();
  readonly #hooks = new Map<string, Hook>();
  #active = 0;
  #idleWaiters: (() => void)[] = [];
  readonly #logs: DeliveryLogBook;
  readonly #objects: ObjectStore;
  #closed = false;

  constructor(opts: ResolvedEngineOptions) {
    this.#opts = opts;
    this.#clock = opts.clock;
    this.#target = opts.target;
    this.#sender = opts.sender;
    this.#logs = new DeliveryLogBook(opts.clock);
    this.#objects = new ObjectStore(opts.clock);
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
    });
    this.#armExpiry(state);
    this.#pump(state);
  }

  onAgentConnected(agentId: string): void {
    const state = this.#agents.get(agentId);
    if (state !== undefined) this.#pump(state);
  }

  recover(agentId: string): { readonly pendingCount: number } {
    const state = this.#agents.get(agentId);
    if (state === undefined) return { pendingCount: 0 };
    state.status = 'ready';
    this.#clearRetry(state);
    const head = state.queue.peek();
    if (head !== undefined) head.failures = 0;
    const pendingCount = state.queue.size;
    this.#opts.log('delivery.recovered', { agent_id: agentId, pending_count: pendingCount });
    this.#pump(state);
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
    if (registration === null) this.#clearRetry(state);
    this.#pump(state);
  }

  getWebhook(agentId: string): WebhookRegistration | undefined {
    return this.#hooks.get(agentId)?.registration;
  }

  logs(agentId: string, limit: number): DeliveryLogEntry[] {
    return this.#logs.list(agentId, limit);
  }

  pendingCount(agentId: string): number {
    return this.#agents.get(agentId)?.queue.size ?? 0;
  }

  getObject(objectKey: string): StoredObject | undefined {
    return this.#objects.get(objectKey);
  }

  forgetAgent(agentId: string): void {
    const state = this.#agents.get(agentId);
    if (state !== undefined) this.#stop(state);
    this.#agents.delete(agentId);
    this.#hooks.delete(agentId);
    this.#logs.forget(agentId);
    this.#objects.forgetAgent(agentId);
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const state of this.#agents.values()) this.#stop(state);
    await this.idle();
    if (this.#opts.ownsSender) await this.#sender.close();
  }

  idle(): Promise<void> {
    if (this.#active === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #state(agentId: string): AgentState {
    let state = this.#agents.get(agentId);
    if (state === undefined) {
      state = newAgentState(agentId);
      this.#agents.set(agentId, state);
    }
    return state;
  }

  #stop(state: AgentState): void {
    state.cancel.abort();
    this.#clearRetry(state);
    if (state.expiryTimer !== undefined) this.#clock.clearTimeout(state.expiryTimer.handle);
    state.expiryTimer = undefined;
  }

  #clearRetry(state: AgentState): void {
    if (state.retryTimer !== undefined) this.#clock.clearTimeout(state.retryTimer);
    state.retryTimer = undefined;
  }

  /** Delivers from the head of the queue while nothing is in flight or waiting. */
  #pump(state: AgentState): void {
    if (this.#closed || state.inFlight || state.retryTimer !== undefined || state.status === 'unreachable')
      return;
    for (let head = state.queue.peek(); head !== undefined; head = state.queue.peek()) {
      const mode = this.#target.mode(state.agentId);
      if (mode === 'websocket') {
        if (!this.#sendWs(state.agentId, head)) return;
        head.attempts++;
        this.#finish(state, 'delivered');
        continue;
      }
      const hook = this.#hooks.get(state.agentId);
      if (mode === 'webhook' && hook !== undefined) this.#startAttempt(state, head, hook);
      return;
    }
    this.#tidy(state);
  }

  #sendWs(agentId: string, head: PendingDelivery): boolean {
    try {
      return this.#target.sendWs(agentId, { ...bodyOf(head.event, head.ref), delivery_id: head.deliveryId });
    } catch {
      return false;
    }
  }

  #startAttempt(state: AgentState, head: PendingDelivery, hook: Hook): void {
    state.inFlight = true;
    head.bytes ??= bodyBytes(bodyOf(head.event, head.ref));
    const run = runAttempt({
      url: hook.registration.url,
      signer: hook.signer,
      agentId: state.agentId,
      deliveryId: head.deliveryId,
      body: head.bytes,
      clock: this.#clock,
      timeoutMs: this.#opts.webhookTimeoutMs,
      sender: this.#sender,
      cancel: state.cancel.signal,
    });
    this.#active++;
    void run.then((result) => {
      this.#active--;
      try {
        this.#onResult(state, head, result);
      } finally {
        // #onResult may have started the next attempt already; idle means none at all.
        if (this.#active === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve();
      }
    });
  }

  #onResult(state: AgentState, head: PendingDelivery, result: AttemptResult): void {
    state.inFlight = false;
    if (result.kind === 'cancelled' || this.#agents.get(state.agentId) !== state) return;
    head.attempts++;
    const fields = { agent_id: state.agentId, delivery_id: head.deliveryId, attempt: head.attempts };
    if (result.kind === 'delivered') this.#finish(state, 'delivered');
    else if (result.kind === 'permanent') this.#finish(state, 'failed', result.errorClass);
    else if (result.kind === 'throttled') {
      this.#opts.log('delivery.throttled', { ...fields, retry_after_ms: result.retryAfterMs });
      this.#retryAfter(state, result.retryAfterMs);
    } else {
      head.failures++;
      this.#opts.log('delivery.attempt_failed', { ...fields, error_class: result.errorClass });
      const delay = nextRetryDelayMs(head.failures);
      if (delay === undefined) this.#markUnreachable(state, head, result.errorClass);
      else if (delay > 0) this.#retryAfter(state, delay);
    }
    this.#expireDue(state);
    this.#pump(state);
  }

  #retryAfter(state: AgentState, ms: number): void {
    state.retryTimer = this.#clock.setTimeout(() => {
      state.retryTimer = undefined;
      this.#pump(state);
    }, ms);
  }

  #markUnreachable(state: AgentState, head: PendingDelivery, errorClass: string): void {
    state.status = 'unreachable';
    head.failures = 0;
    this.#record(state, head, 'unreachable', errorClass);
    head.loggedUnreachable = true;
    this.#opts.log('delivery.agent_unreachable', { agent_id: state.agentId, delivery_id: head.deliveryId });
  }

  /** The head reached a final status: log it, release its object, move on. */
  #finish(state: AgentState, status: FinalStatus, errorClass?: string): void {
    const head = state.queue.shift();
    if (head === undefined) return;
    this.#record(state, head, status, errorClass);
    if (head.ref !== undefined) this.#objects.release(head.ref.object_key);
    const fields = { agent_id: state.agentId, delivery_id: head.deliveryId, attempts: head.attempts };
    this.#opts.log(
      `delivery.${status}`,
      errorClass === undefined ? fields : { ...fields, error_class: errorClass },
    );
    this.#armExpiry(state);
  }

  #record(
    state: AgentState,
    head: PendingDelivery,
    status: 'delivered' | 'failed' | 'unreachable',
    errorClass?: string,
  ): void {
    this.#logs.record({
      deliveryId: head.deliveryId,
      agentId: state.agentId,
      eventType: head.event.type,
      createdAtMs: head.createdAtMs,
      attempts: head.attempts,
      status,
      errorClass,
      replace: head.loggedUnreachable,
    });
  }

  /** Keeps one timer per agent, at the head's expiry (the queue is in time order). */
  #armExpiry(state: AgentState): void {
    const head = state.queue.peek();
    if (state.expiryTimer !== undefined && state.expiryTimer.atMs === head?.expiresAtMs) return;
    if (state.expiryTimer !== undefined) this.#clock.clearTimeout(state.expiryTimer.handle);
    state.expiryTimer = undefined;
    if (head === undefined) return;
    const handle = this.#clock.setTimeout(() => {
      state.expiryTimer = undefined;
      this.#expireDue(state);
      this.#pump(state);
    }, head.expiresAtMs - this.#clock.now());
    state.expiryTimer = { handle, atMs: head.expiresAtMs };
  }

  /** Drops deliveries queued 24 h ago (never the one in flight) and tells the agents core. */
  #expireDue(state: AgentState): void {
    const now = this.#clock.now();
    const dropped: OutboundEvent[] = [];
    for (
      let head = state.queue.peek();
      head !== undefined && head.expiresAtMs <= now;
      head = state.queue.peek()
    ) {
      if (state.inFlight) break;
      this.#clearRetry(state);
      state.queue.shift();
      if (head.attempts > 0 && !head.loggedUnreachable)
        this.#record(state, head, 'failed', 'pending_expired');
      if (head.ref !== undefined) this.#objects.release(head.ref.object_key);
      dropped.push(head.event);
    }
    if (dropped.length === 0) return;
    this.#armExpiry(state);
    this.#opts.log('delivery.expired', { agent_id: state.agentId, count: dropped.length });
    this.#opts.onExpired(state.agentId, dropped);
  }

  /** Forgets an agent's state once it holds nothing worth keeping. */
  #tidy(state: AgentState): void {
    if (
      state.queue.size === 0 &&
      state.status === 'ready' &&
      !state.inFlight &&
      state.retryTimer === undefined
    ) {
      this.#stop(state);
      this.#agents.delete(state.agentId);
    }
  }
}
