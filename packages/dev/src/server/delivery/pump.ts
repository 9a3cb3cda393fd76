/**
 * The per-agent delivery process: take the head of an agent's queue, send it
 * (WebSocket frame, or a webhook attempt), act on the outcome (deliver, fail,
 * retry on the schedule, mark `unreachable`), drop what waited 24 h, log
 * every final status. One delivery in flight per agent (head-of-line FIFO).
 *
 * @module
 */
import { runAttempt, type AttemptResult } from './attempt.js';
import type { AttemptLog } from './attempt-log.js';
import { bodyBytes, bodyOf } from './body.js';
import { armExpiry, takeExpired } from './expiry.js';
import type { DeliveryLogBook } from './logs.js';
import type { ObjectStore } from './objects.js';
import type { ResolvedEngineOptions } from './options.js';
import type { AgentState, PendingDelivery } from './queue.js';
import { nextRetryDelayMs } from './schedule.js';
import type { DeliveryChange } from './observer.js';
import type { WebhookSigner } from 'agent-messaging-sdk/protocol';
import type { WebhookRegistration, WsSession } from './types.js';
import { WsAckWindow, writeWsFrame } from './ws-acks.js';
import { routeConversation } from './affinity.js';

/** A registration with its signer (HMAC key prepared once). */
export interface Hook {
  readonly registration: WebhookRegistration;
  readonly signer: WebhookSigner;
}

type FinalStatus = 'delivered' | 'failed';

/** What the pump shares with the engine. */
export interface PumpDeps {
  readonly opts: ResolvedEngineOptions;
  readonly agents: Map<string, AgentState>;
  readonly hooks: ReadonlyMap<string, Hook>;
  readonly logs: DeliveryLogBook;
  readonly attempts: AttemptLog;
  readonly objects: ObjectStore;
  readonly isClosed: () => boolean;
}

/** Drives every agent's queue. */
export class AgentPump {
  readonly #opts: ResolvedEngineOptions;
  readonly #agents: Map<string, AgentState>;
  readonly #hooks: ReadonlyMap<string, Hook>;
  readonly #logs: DeliveryLogBook;
  readonly #attempts: AttemptLog;
  readonly #objects: ObjectStore;
  readonly #isClosed: () => boolean;
  #active = 0;
  #idleWaiters: (() => void)[] = [];
  /** Acknowledged WebSocket delivery (sessions that negotiated acks). */
  readonly acks: WsAckWindow;

  constructor(deps: PumpDeps) {
    this.#opts = deps.opts;
    this.#agents = deps.agents;
    this.#hooks = deps.hooks;
    this.#logs = deps.logs;
    this.#attempts = deps.attempts;
    this.#objects = deps.objects;
    this.#isClosed = deps.isClosed;
    this.acks = new WsAckWindow({
      opts: deps.opts,
      attempts: deps.attempts,
      complete: (state, delivery, status, errorClass) => this.#complete(state, delivery, status, errorClass),
      pump: (state) => this.pump(state),
      armExpiry: (state) => this.armExpiry(state),
    });
  }

  /** Resolves once no webhook attempt is in flight. */
  idle(): Promise<void> {
    if (this.#active === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Cancels the agent's attempt in flight and its timers. */
  stop(state: AgentState): void {
    state.cancel.abort();
    this.clearRetry(state);
    this.acks.stop(state);
    if (state.expiryTimer !== undefined) this.#opts.clock.clearTimeout(state.expiryTimer.handle);
    state.expiryTimer = undefined;
  }

  /** Cancels a waiting retry. */
  clearRetry(state: AgentState): void {
    if (state.retryTimer !== undefined) this.#opts.clock.clearTimeout(state.retryTimer);
    state.retryTimer = undefined;
  }

  /** Delivers from the head of the queue while nothing is in flight or waiting. */
  pump(state: AgentState): void {
    if (
      this.#isClosed() ||
      state.inFlight ||
      state.retryTimer !== undefined ||
      state.status === 'unreachable'
    )
      return;
    // Mode and sessions cannot change inside this synchronous loop: looked up once.
    const mode = this.#opts.target.mode(state.agentId);
    const sessions = mode === 'websocket' ? this.#sessions(state.agentId) : [];
    for (let head = state.queue.peek(); head !== undefined; head = state.queue.peek()) {
      if (mode === 'websocket') {
        // Head-of-line: the head waits for its conversation's session, the rest behind it.
        const route = routeConversation(state, head.event.metadata.conversation_id, sessions);
        if (route === 'wait') return;
        if (route.acks) {
          if (!this.acks.sendHead(state, head, route.id)) return;
          continue;
        }
        if (!writeWsFrame(this.#opts, state.agentId, head, route.id)) return;
        head.attempts++;
        this.#attempts.addWs(state.agentId, head.deliveryId, route.id, this.#opts.clock.now(), false);
        this.#observe('attempt_finished', state, head);
        this.#finish(state, 'delivered');
        continue;
      }
      const hook = this.#hooks.get(state.agentId);
      if (mode === 'webhook' && hook !== undefined) this.#startAttempt(state, head, hook);
      return;
    }
    this.#tidy(state);
  }

  /**
   * The agent's open sessions: every one when the target lists them (copies
   * sharing delivery), else its one session; a target that tells neither
   * counts as one session without acks (id 0).
   */
  #sessions(agentId: string): readonly WsSession[] {
    const target = this.#opts.target;
    if (target.wsSessions !== undefined) return target.wsSessions(agentId);
    if (target.wsSession === undefined) return [{ id: 0, acks: false }];
    const one = target.wsSession(agentId);
    return one === undefined ? [] : [one];
  }

  #startAttempt(state: AgentState, head: PendingDelivery, hook: Hook): void {
    state.inFlight = true;
    const startedAtMs = this.#opts.clock.now();
    head.bytes ??= bodyBytes(bodyOf(head.event, head.ref));
    let sentHeaders: Readonly<Record<string, string>> | undefined;
    const run = runAttempt({
      url: hook.registration.url,
      signer: hook.signer,
      agentId: state.agentId,
      deliveryId: head.deliveryId,
      body: head.bytes,
      clock: this.#opts.clock,
      timeoutMs: this.#opts.webhookTimeoutMs,
      sender: this.#opts.sender,
      cancel: state.cancel.signal,
      onSigned: (headers) => (sentHeaders = headers),
    });
    this.#active++;
    this.#observe('attempt_started', state, head);
    void run.then((result) => {
      this.#active--;
      try {
        this.#onResult(state, head, result, startedAtMs, sentHeaders);
      } finally {
        // onResult may have started the next attempt already; idle means none at all.
        if (this.#active === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve();
      }
    });
  }

  #onResult(
    state: AgentState,
    head: PendingDelivery,
    result: AttemptResult,
    startedAtMs: number,
    headers: Readonly<Record<string, string>> | undefined,
  ): void {
    state.inFlight = false;
    if (result.kind === 'cancelled' || this.#agents.get(state.agentId) !== state) return;
    head.attempts++;
    const next =
      result.kind === 'throttled'
        ? result.retryAfterMs
        : result.kind === 'temporary'
          ? nextRetryDelayMs(head.failures + 1)
          : undefined;
    const now = this.#opts.clock.now();
    this.#attempts.add(state.agentId, head.deliveryId, startedAtMs, now, result, next, headers);
    this.#observe('attempt_finished', state, head);
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
    this.pump(state);
  }

  #retryAfter(state: AgentState, ms: number): void {
    // Background: the server's socket keeps a process alive, never the engine's waits.
    state.retryTimer = this.#opts.clock.setTimeout(
      () => {
        state.retryTimer = undefined;
        this.pump(state);
      },
      ms,
      { background: true },
    );
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
    this.#complete(state, head, status, errorClass);
  }

  /** A delivery (no longer queued) reached a final status: log it, release its object. */
  #complete(state: AgentState, head: PendingDelivery, status: FinalStatus, errorClass?: string): void {
    this.#record(state, head, status, errorClass);
    if (head.ref !== undefined) this.#objects.release(head.ref.object_key);
    const fields = { agent_id: state.agentId, delivery_id: head.deliveryId, attempts: head.attempts };
    this.#opts.log(
      `delivery.${status}`,
      errorClass === undefined ? fields : { ...fields, error_class: errorClass },
    );
    this.armExpiry(state);
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
    this.#observe(status, state, head);
  }

  #observe(change: DeliveryChange, state: AgentState, head: PendingDelivery): void {
    this.#opts.observe({ change, agentId: state.agentId, deliveryId: head.deliveryId });
  }

  /** Sets the agent's 24 h timer to its current head. */
  armExpiry(state: AgentState): void {
    armExpiry(state, this.#opts.clock, () => {
      this.#expireDue(state);
      this.pump(state);
    });
  }

  /** Drops deliveries queued 24 h ago and tells the agents core (senders get notices). */
  #expireDue(state: AgentState): void {
    const dropped = takeExpired(state, this.#opts.clock.now());
    if (dropped.length === 0) return;
    this.clearRetry(state);
    for (const head of dropped) {
      // Every dropped event is logged (an `unreachable` entry is replaced), attempted or not:
      // for a system event (no sender to notify) the log is the agent's only way to learn it.
      this.#record(state, head, 'failed', 'pending_expired');
      if (head.ref !== undefined) this.#objects.release(head.ref.object_key);
    }
    this.armExpiry(state);
    this.#opts.log('delivery.expired', { agent_id: state.agentId, count: dropped.length });
    this.#opts.onExpired(
      state.agentId,
      dropped.map((d) => d.event),
    );
  }

  /** Forgets an agent's state once it holds nothing worth keeping. */
  #tidy(state: AgentState): void {
    if (
      state.queue.size === 0 &&
      state.unacked.size === 0 &&
      state.owners.size === 0 &&
      state.status === 'ready' &&
      !state.inFlight &&
      state.retryTimer === undefined
    ) {
      this.stop(state);
      this.#agents.delete(state.agentId);
    }
  }
}
