/**
 * The one event pipeline, fed by either transport:
 *
 * de-duplicate (delivery id) → fetch `ref` → open the envelope with the key
 * ring → check type, sender and age (`delivery-checks.ts`) → de-duplicate
 * (message id) → typed event → handlers, in order within
 * a conversation and concurrently across conversations.
 *
 * On WebSocket, {@link EventPipeline.ingest} runs every step; the crypto
 * steps of later events start while earlier handlers run (at most
 * `prepareConcurrency` at once), but handlers still see each conversation's
 * events in arrival order. By webhook, the receiver runs the first steps
 * with this pipeline's functions (see `webhook-bridge.ts`) and hands the
 * opened envelope to {@link EventPipeline.handleOpened}.
 *
 * Failures never stop the pipeline: a decrypt failure is a typed
 * `decryptFailure` and the message is discarded; a handler error goes to
 * the `error` channel with the event attached; other conversations go on.
 *
 * @module
 */
import { QuoteCache } from '../../messaging/quote-cache.js';
import { readMessageAction } from '../../core/protocol/message-actions.js';
import type { OpenedEnvelope } from '../../crypto/open-options.js';
import type { OpenPoolStats } from '../../crypto/open-pool/pool.js';
import type { EventDedup, OwnedClaim } from '../dedup.js';
import type { ListenerFailure, TypedEmitter } from '../emitter.js';
import type {
  AgentEventType,
  AgentListenerArgs,
  AgentTransport,
  AnyAgentEvent,
  CloseResult,
  IncomingMessage,
} from '../events.js';
import type { OrderedScheduler, TaskOutcome } from '../ordering.js';
import { TransportError } from '../../core/errors/transport-error.js';
import { eventFromCleartext, eventFromEnvelope, type BuildContext } from './build-event.js';
import { deliveryRefusal } from '../../messaging/delivery-checks.js';
import { attributeForward, rememberWireEnvelope } from '../../messaging/forward-attribution.js';
import { ghostKeyWarning } from '../../messaging/ghost-keys.js';
import { keyFingerprint } from '../../crypto/keys.js';
import { fetchRef, openEnvelope, type RefLike } from './open-envelope.js';
import { IDLE_FLOW_STATS, type FlowStats } from './flow-control.js';
import { completeAll, Outcomes, releaseAll, type EventContext } from './outcomes.js';
import { VETTED_EVENT_TYPES, type AgentStats, type InboundEvent, type PipelineDeps } from './types.js';
import { createTurnRegistry, type TurnRegistry } from '../turns/registry.js';
import { resolveTurnOptions, TurnGate, type ResolvedTurnOptions } from '../turns/strategy.js';
import { readTurnStop, type TurnStopPayload } from '../../core/protocol/turn-control.js';
import { observeDelivery, type AgentObserver, type DeliveryObserver } from '../observer.js';

/** Options of {@link EventPipeline}. */
export interface EventPipelineOptions {
  readonly deps: PipelineDeps;
  readonly dedup: EventDedup;
  readonly scheduler: OrderedScheduler;
  readonly emitter: TypedEmitter<AgentListenerArgs>;
  /** Events whose crypto steps may run at once (WebSocket). @defaultValue `64` */
  readonly prepareConcurrency?: number;
  /** Turns: the registry of running turns, the strategies, and the stop handler. */
  readonly turns?: PipelineTurns;
}

/** The turn parts of the pipeline (issue #26). */
export interface PipelineTurns {
  readonly registry?: TurnRegistry;
  readonly options?: ResolvedTurnOptions;
  /** Handles a verified `turn.stop` (around the conversation's queue). */
  readonly onStop?: (message: IncomingMessage, stop: TurnStopPayload) => Promise<void>;
}

/**
 * Events handled around the conversation's queue, as soon as they are opened:
 * answers a running handler may be awaiting (`artifact.response()`).
 */
const AROUND_LANE_TYPES: ReadonlySet<string> = new Set(['artifact_response', 'artifact.expired']);

/** A typed event ready for its handlers, with the claims to settle afterwards. */
interface Prepared {
  readonly event: AnyAgentEvent;
  readonly claims: readonly OwnedClaim[];
  /** Set for a control event handled around the queue: settles when it was handled. */
  around?: Promise<void>;
}

/**
 * What became of one event taken by {@link EventPipeline.ingest}; it decides
 * whether the WebSocket delivery is acknowledged (see {@link isSettled}):
 * - `handled`: its handlers ran (a handler error included: it went to `error`);
 * - `skipped`: it needs no handling, now or later (a duplicate of a handled
 *   event, or a message that failed to decrypt and was discarded);
 * - `busy`: a copy of it is being handled right now (that copy settles it);
 * - `retry`: it was not handled and must come again (the de-duplication store
 *   could not answer, or a step failed for a reason that may pass);
 * - `dropped`: `close()` abandoned it before its handlers ran.
 */
export type IngestOutcome = 'handled' | 'skipped' | 'busy' | 'retry' | 'dropped';

/** True when an event is done with for good, so its delivery may be acknowledged. */
export function isSettled(outcome: IngestOutcome): boolean {
  return outcome === 'handled' || outcome === 'skipped';
}

/**
 * Why an event left the pipeline before its handlers; `contended`: another
 * process holds its claim; `deferred`: the de-duplication store did not
 * answer (both asked again in place, see {@link CONTENDED_RETRY_MS}).
 */
type Skip = { readonly skip: Exclude<IngestOutcome, 'handled' | 'dropped'> | 'contended' | 'deferred' };

/** The pool figures of a pipeline that opens every envelope on the calling thread. */
const NO_POOL_STATS: OpenPoolStats = { workers: 0, openedInWorkers: 0, openedInThread: 0, reopened: 0 };

/** How often an event whose claim another process holds asks the store again, ms. */
export const CONTENDED_RETRY_MS = 1000;

function isSkip(p: Prepared | Skip): p is Skip {
  return 'skip' in p;
}

/** Thrown to the webhook receiver when the store could not answer (the service retries). */
function storeUnavailable(): TransportError {
  return new TransportError({
    code: 'TRANSPORT_CLOSED',
    message: 'The de-duplication store did not answer; the service will deliver this again.',
  });
}

/** Thrown to the webhook receiver when another process holds the message's claim (the service retries). */
function heldElsewhere(): TransportError {
  return new TransportError({
    code: 'TRANSPORT_CLOSED',
    message: 'Another process holds this message; the service will deliver it again.',
  });
}

/** The conversation lane of an event (`system` when it names none). */
export function laneOf(inbound: InboundEvent): string {
  return inbound.metadata?.conversation_id ?? 'system';
}

/** Quotes without memory: `replyTo` carries the id only. */
const NO_QUOTES = new QuoteCache(0);

/** The pipeline. */
export class EventPipeline {
  readonly outcomes: Outcomes;
  readonly #deps: PipelineDeps;
  readonly #dedup: EventDedup;
  /** Delivery ids whose first copy waits for a claim held elsewhere, or for the store. */
  readonly #waitingIds = new Set<string>();
  /** Events taken so far (their order of arrival). */
  #ingested = 0;
  /** Per lane: events that arrived up to this one give way (see `ingest`). */
  readonly #gaveUp = new Map<string, number>();
  readonly #scheduler: OrderedScheduler;
  readonly #emitter: TypedEmitter<AgentListenerArgs>;
  readonly #prepareLimit: number;
  #preparing = 0;
  #draining = false;
  readonly #waiting: (() => void)[] = [];
  /** The turn strategies and the registry of running turns. */
  readonly turns: TurnGate<Prepared>;
  readonly #onStop: PipelineTurns['onStop'];
  /** The observers `agent.observe()` registered (traces and metrics). */
  readonly observers: AgentObserver[] = [];
  /** The observer following each delivery, by its inbound event and its typed event. */
  readonly #followed = new WeakMap<object, DeliveryObserver>();

  constructor(options: EventPipelineOptions) {
    const t = options.turns ?? {};
    this.turns = new TurnGate(
      t.registry ?? createTurnRegistry(),
      options.deps.clock,
      t.options ?? resolveTurnOptions(undefined),
    );
    this.#onStop = t.onStop;
    this.#deps = options.deps;
    this.#dedup = options.dedup;
    this.#scheduler = options.scheduler;
    this.#emitter = options.emitter;
    this.#prepareLimit = options.prepareConcurrency ?? 64;
    this.outcomes = new Outcomes(options.emitter, options.deps.logger);
  }

  /** Counters and live figures, with the WebSocket flow-control figures given. */
  stats(flow: FlowStats = IDLE_FLOW_STATS): AgentStats {
    return {
      ...this.outcomes.stats(this.#scheduler.running, this.#scheduler.queued),
      ...flow,
      openWorkers: this.#deps.openPool?.stats() ?? NO_POOL_STATS,
    };
  }

  /**
   * Takes one event from the WebSocket. Returns at once; the returned
   * promise (for tests and benchmarks) settles when the event is done with.
   */
  ingest(inbound: InboundEvent, transport: AgentTransport = 'websocket'): Promise<IngestOutcome> {
    this.outcomes.count('received');
    this.#follow(inbound, transport);
    const prepared = this.#prepareDecided(inbound, transport).then((p) => this.#route(p));
    const key = this.turns.laneKey(laneOf(inbound), inbound.type);
    const seq = ++this.#ingested;
    let gaveWay = false;
    const run = this.#scheduler.push(key, async () => {
      const p = await prepared;
      if (isSkip(p)) {
        // Given up unhandled (draining while a claim was held elsewhere or the store was down): the
        // events queued behind it in its conversation give way too, unacknowledged, so the service
        // sends them again after it, in order, instead of running them before it.
        if (p.skip === 'contended' || p.skip === 'deferred') this.#gaveUp.set(key, this.#ingested);
        return;
      }
      if (p.around !== undefined) return;
      if (seq <= (this.#gaveUp.get(key) ?? 0)) {
        gaveWay = true;
        await releaseAll(p.claims);
        return;
      }
      await this.#inTurn(p);
    });
    const settled = run.then(async (outcome): Promise<IngestOutcome> => {
      const p = await prepared;
      if (this.#scheduler.queued === 0 && this.#scheduler.running === 0) this.#gaveUp.clear();
      if (outcome === 'dropped') {
        if (!isSkip(p) && p.around === undefined) await releaseAll(p.claims);
        return 'dropped';
      }
      if (gaveWay) return 'retry';
      if (!isSkip(p)) return 'handled';
      return p.skip === 'contended' || p.skip === 'deferred' ? 'retry' : p.skip;
    });
    // A control event is settled once handled: it never waits for the queue.
    return prepared.then((p) =>
      !isSkip(p) && p.around !== undefined ? p.around.then((): IngestOutcome => 'handled') : settled,
    );
  }

  /** Starts following a delivery when an observer is registered. */
  #follow(inbound: InboundEvent, transport: AgentTransport): DeliveryObserver | undefined {
    if (this.observers.length === 0) return undefined;
    const d = observeDelivery(this.observers, {
      deliveryId: inbound.deliveryId,
      eventType: inbound.type,
      conversationId: inbound.metadata?.conversation_id,
      transport,
      redelivered: inbound.redelivered === true,
    });
    if (d !== undefined) this.#followed.set(inbound, d);
    return d;
  }

  /** Starts following a webhook delivery before it is opened (so its `open` step is observed too). */
  followWebhook(inbound: InboundEvent): DeliveryObserver | undefined {
    return this.#follow(inbound, 'webhook');
  }

  /** The observer following the delivery of `inbound` (see `agent.observe()`), if any. */
  deliveryObserver(inbound: InboundEvent): DeliveryObserver | undefined {
    return this.#followed.get(inbound);
  }

  /** Runs a step of the delivery `key` (its inbound or typed event) under its observer. */
  #step<T>(key: object, step: 'open' | 'handle', run: () => Promise<T>): Promise<T> {
    const d = this.#followed.get(key);
    return d === undefined ? run() : d.step(step, run);
  }

  /**
   * Called once an event is opened, outside the conversation's queue: a
   * stop request or an artifact answer is handled at once (`around`); a
   * message is shown to the turn strategy (collected, or superseding).
   */
  #route(p: Prepared | Skip): Prepared | Skip {
    if (isSkip(p)) return p;
    const { event } = p;
    if (event.type === 'message.new') {
      const action = readMessageAction((event as IncomingMessage).payload);
      if (action !== undefined) {
        // An edit, delete or receipt is no turn: judged and emitted at once (`messageEdited` …).
        p.around = (async () => {
          this.#deps.onAction?.(event as IncomingMessage, action);
          this.outcomes.count('handled');
          await completeAll(p.claims);
        })();
        return p;
      }
      const stop = readTurnStop((event as IncomingMessage).payload);
      if (stop !== undefined) {
        const onStop = this.#onStop;
        p.around = (async () => {
          if (onStop !== undefined) await onStop(event as IncomingMessage, stop);
          this.outcomes.count('handled');
          await completeAll(p.claims);
        })();
        return p;
      }
      this.turns.arrived(p);
      return p;
    }
    if (AROUND_LANE_TYPES.has(event.type)) p.around = this.#dispatch(p);
    return p;
  }

  /** Runs an event in its place in the queue: a message as (part of) a turn, others as they are. */
  #inTurn(p: Prepared): Promise<void> {
    if (p.event.type !== 'message.new') return this.#dispatch(p);
    return this.turns.run(p, (items) => this.#dispatchTurn(items));
  }

  /**
   * Prepares an event; while another process holds its claim, or the store
   * does not answer (Redis restarting), waits and asks again (outside the
   * prepare slots), so the event keeps its place in its conversation and is
   * neither skipped, handled out of order, nor handled twice. Gives up
   * (`retry`, not acknowledged) when the pipeline drains.
   */
  async #prepareDecided(inbound: InboundEvent, transport: AgentTransport): Promise<Prepared | Skip> {
    const id = inbound.deliveryId;
    // A copy of a delivery that already waits here (sent again while it waited) stands aside:
    // were it to win the claim, it would run behind the events that came after the first copy.
    if (id !== undefined && this.#waitingIds.has(id)) return { skip: 'busy' };
    try {
      for (;;) {
        const p = await this.#gated(() => this.#prepare(inbound, transport));
        if (!isSkip(p) || (p.skip !== 'contended' && p.skip !== 'deferred') || this.#draining) return p;
        if (id !== undefined) this.#waitingIds.add(id);
        await new Promise<void>((resolve) =>
          this.#deps.clock.setTimeout(resolve, CONTENDED_RETRY_MS, { background: true }),
        );
      }
    } finally {
      if (id !== undefined) this.#waitingIds.delete(id);
    }
  }

  /**
   * The rest of the pipeline for an envelope the webhook receiver opened:
   * message-id de-duplication, typed event, handlers in conversation order.
   * Resolves `'dropped'` when `close()` abandoned it before its handlers ran.
   */
  async handleOpened(
    inbound: InboundEvent,
    deliveryId: string,
    opened: OpenedEnvelope,
  ): Promise<TaskOutcome> {
    const d = this.#followed.get(inbound) ?? this.#follow(inbound, 'webhook');
    if (d === undefined) return this.#handleOpened(inbound, deliveryId, opened);
    try {
      const outcome = await this.#handleOpened(inbound, deliveryId, opened);
      d.end(outcome === 'dropped' ? 'dropped' : 'handled');
      return outcome;
    } catch (error) {
      d.end('retry');
      throw error;
    }
  }

  async #handleOpened(
    inbound: InboundEvent,
    deliveryId: string,
    opened: OpenedEnvelope,
  ): Promise<TaskOutcome> {
    const claims: OwnedClaim[] = [];
    const p = await this.#fromOpened(inbound, 'webhook', deliveryId, opened, claims);
    if (isSkip(p)) {
      if (p.skip === 'retry' || p.skip === 'deferred') throw storeUnavailable();
      if (p.skip === 'contended') throw heldElsewhere();
      return 'done';
    }
    this.#route(p);
    if (p.around !== undefined) {
      await p.around;
      return 'done';
    }
    const key = this.turns.laneKey(laneOf(inbound), inbound.type);
    const outcome = await this.#scheduler.push(key, () => this.#inTurn(p));
    if (outcome === 'dropped') await releaseAll(p.claims);
    return outcome;
  }

  /** Fetches and checks the ciphertext of a `ref`. */
  fetchRef(ref: RefLike): Promise<Uint8Array> {
    return fetchRef(this.#deps, ref);
  }

  /** Opens envelope bytes as this agent. */
  open(input: string | Uint8Array, referenced: boolean): Promise<OpenedEnvelope> {
    return openEnvelope(this.#deps, input, referenced);
  }

  /**
   * Waits up to `timeoutMs` for every queued and running handler; then drops
   * what has not started (claims released, so a redelivery handles it).
   */
  async drain(timeoutMs: number): Promise<CloseResult> {
    this.#draining = true;
    this.turns.flush(); // nothing waits for a debounce window any more
    const clock = this.#deps.clock;
    let timer: ReturnType<typeof clock.setTimeout> | undefined;
    const timedOut = await Promise.race([
      this.#scheduler.idle().then(() => false),
      new Promise<boolean>((resolve) => {
        timer = clock.setTimeout(() => resolve(true), timeoutMs);
      }),
    ]);
    if (timer !== undefined) clock.clearTimeout(timer);
    await this.#deps.openPool?.close();
    if (!timedOut) return { drained: true, abandoned: 0 };
    // Past the deadline: running turns see ctx.signal abort (reason `shutdown`).
    this.turns.registry.abortAll('shutdown');
    return { drained: false, abandoned: this.#scheduler.clear() };
  }

  async #gated<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#preparing >= this.#prepareLimit) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#preparing += 1;
    }
    try {
      return await fn();
    } finally {
      // Hand the slot straight to the next waiter, or free it.
      const next = this.#waiting.shift();
      if (next !== undefined) next();
      else this.#preparing -= 1;
    }
  }

  async #prepare(inbound: InboundEvent, transport: AgentTransport): Promise<Prepared | Skip> {
    const deliveryId = inbound.deliveryId ?? '';
    const claims: OwnedClaim[] = [];
    if (inbound.deliveryId !== undefined) {
      const c = await this.#dedup.claimDelivery(inbound.deliveryId);
      if (c.status === 'unavailable') return this.#deferred(deliveryId, transport);
      if (c.status === 'contended') return { skip: 'contended' };
      if (c.status === 'duplicate') {
        this.outcomes.duplicate({ deliveryId, messageId: undefined, by: 'delivery_id', transport });
        return { skip: c.state === 'completed' ? 'skipped' : 'busy' };
      }
      claims.push(c.claim);
    }
    const ctx = this.#context(inbound, transport, deliveryId);
    try {
      if (inbound.wireEnvelope === undefined && inbound.ref === undefined) {
        const event = eventFromCleartext(inbound, this.#build(transport, deliveryId));
        const d = this.#followed.get(inbound);
        if (d !== undefined) this.#followed.set(event, d);
        return { event, claims };
      }
      const referenced = inbound.ref !== undefined;
      const opened = await this.#step(inbound, 'open', async () =>
        this.open(
          inbound.ref !== undefined ? await this.fetchRef(inbound.ref) : inbound.wireEnvelope!,
          referenced,
        ),
      );
      return await this.#fromOpened(inbound, transport, deliveryId, opened, claims);
    } catch (error) {
      const how = this.outcomes.stepFailed(ctx, error);
      await this.#settle(claims, how);
      return { skip: how === 'complete' ? 'skipped' : 'retry' };
    }
  }

  /**
   * The store could not answer: nothing runs unclaimed. Over WebSocket the
   * event keeps its place and asks again; by webhook the request is answered
   * with a retryable status.
   */
  #deferred(deliveryId: string, transport: AgentTransport): Skip {
    this.outcomes.count('deferred');
    this.#deps.logger.warn('the de-duplication store did not answer; the event waits and asks again', {
      deliveryId,
      transport,
    });
    return { skip: 'deferred' };
  }

  async #fromOpened(
    inbound: InboundEvent,
    transport: AgentTransport,
    deliveryId: string,
    opened: OpenedEnvelope,
    claims: OwnedClaim[],
  ): Promise<Prepared | Skip> {
    // Type, sender and age are checked before the message id is claimed, so a
    // relabelled or stale copy cannot make the genuine one look like a duplicate.
    const refused = deliveryRefusal(opened, inbound.type, this.#deps.clock.now());
    if (refused !== undefined) {
      const ctx = this.#context(inbound, transport, deliveryId);
      const how = this.outcomes.stepFailed(ctx, refused);
      await this.#settle(claims, how);
      return { skip: how === 'complete' ? 'skipped' : 'retry' };
    }
    const m = await this.#dedup.claimMessage(opened.senderId, opened.messageId);
    if (m.status === 'unavailable') {
      await releaseAll(claims);
      return this.#deferred(deliveryId, transport);
    }
    if (m.status === 'contended') {
      await releaseAll(claims);
      return { skip: 'contended' };
    }
    if (m.status === 'duplicate') {
      this.outcomes.duplicate({ deliveryId, messageId: opened.messageId, by: 'message_id', transport });
      if (m.state === 'in_flight') {
        // The copy being handled settles the message; this delivery is acknowledged when it comes again.
        await releaseAll(claims);
        return { skip: 'busy' };
      }
      await completeAll(claims);
      return { skip: 'skipped' };
    }
    claims.push(m.claim);
    await this.#checkGhostKeys(opened);
    try {
      const event = eventFromEnvelope(inbound, opened, this.#build(transport, deliveryId));
      // Human decisions are checked here, on both transports, before any handler sees them.
      const vet = this.#deps.vet;
      const refusal =
        vet !== undefined && VETTED_EVENT_TYPES.has(event.type) ? await vet(event, opened) : undefined;
      if (refusal !== undefined) {
        this.outcomes.decisionRefused(this.#context(inbound, transport, deliveryId), opened, refusal);
        await completeAll(claims);
        return { skip: 'skipped' };
      }
      const typed = await this.#withForwardAttribution(event, inbound);
      const d = this.#followed.get(inbound);
      if (d !== undefined) this.#followed.set(typed, d);
      return { event: typed, claims };
    } catch (error) {
      const ctx = this.#context(inbound, transport, deliveryId);
      const how = this.outcomes.stepFailed(ctx, error);
      await this.#settle(claims, how);
      return { skip: how === 'complete' ? 'skipped' : 'retry' };
    }
  }

  /**
   * The ghost detector: warns (`keyWarning`) when the envelope lists a key
   * under this agent's id that is not in its ring. Never throws.
   */
  async #checkGhostKeys(opened: OpenedEnvelope): Promise<void> {
    const mine = opened.recipients.filter((r) => r.id === this.#deps.agentId);
    // The common case: one wrap for this agent, the one that opened it.
    if (mine.length === 1 && mine[0]!.fingerprint === opened.keyFingerprint) return;
    try {
      const ring = await this.#deps.keys.ring();
      const own = new Set(ring.candidates(this.#deps.clock.now()).map((k) => keyFingerprint(k.publicKey)));
      const warning = ghostKeyWarning(opened, this.#deps.agentId, own);
      if (warning === undefined) return;
      this.#deps.logger.warn(
        'a message was also wrapped to a key listed under this agent that it does not hold',
        {
          conversationId: warning.conversationId,
          fingerprints: warning.fingerprints.join(','),
        },
      );
      this.#emitter.emit('keyWarning', warning);
    } catch {
      // The ring did not load: the open itself used it, so this cannot happen in practice.
    }
  }

  /**
   * A message event with its forward attribution (a `forwarded` payload: is
   * the original sender's signature behind it?), remembered with its wire
   * envelope so that forwarding it again can carry the proof. Never throws.
   */
  async #withForwardAttribution(event: AnyAgentEvent, inbound: InboundEvent): Promise<AnyAgentEvent> {
    if (event.type !== 'message.new') return event;
    const message = event as IncomingMessage;
    const forwarded = await attributeForward(message.payload, message.senderId, (id) =>
      this.#deps.keys.signingKey(id),
    );
    const replyTo = (this.#deps.quotes ?? NO_QUOTES).replyOf(message.conversationId, message.payload);
    this.#deps.quotes?.remember(message.conversationId, message.messageId, message.senderId, message.payload);
    const result: IncomingMessage =
      forwarded === undefined && replyTo === undefined
        ? message
        : {
            ...message,
            ...(forwarded === undefined ? {} : { forwarded }),
            ...(replyTo === undefined ? {} : { replyTo }),
          };
    if (inbound.wireEnvelope !== undefined) rememberWireEnvelope(result, inbound.wireEnvelope);
    return result;
  }

  /**
   * Runs one turn: the handlers of the newest message, with every message of
   * the turn in `ctx.messages`; settles the claims of them all. A handler
   * error after the turn was aborted is logged, not raised.
   */
  async #dispatchTurn(items: readonly Prepared[]): Promise<void> {
    const { event } = items[items.length - 1]!;
    const turn = this.turns.registry.begin(
      event.conversationId,
      items.map((i) => i.event as IncomingMessage),
    );
    const endStatus = this.#deps.turnStarted?.(event);
    let failures: ListenerFailure[];
    try {
      failures = await this.#step(event, 'handle', () => this.#handle(event));
    } finally {
      endStatus?.();
      turn.end();
    }
    for (const _ of items) this.outcomes.count('handled');
    for (const f of failures) {
      if (turn.signal.aborted) {
        this.#deps.logger.debug('a handler failed after its turn was aborted', {
          conversationId: event.conversationId,
          reason: turn.abortReason,
          error: (f.error as Error)?.name,
        });
      } else this.outcomes.handlerFailed(event, event.type, f.error);
    }
    await completeAll(items.flatMap((i) => i.claims));
  }

  /**
   * Runs an event's handlers: the middleware chain first (a handled command,
   * or any middleware that does not call next, ends it), then the
   * `agent.on(type)` handlers as its end, then the `event` listeners, which
   * see every event. Resolves the failures of them all.
   */
  async #handle(event: AnyAgentEvent): Promise<ListenerFailure[]> {
    const failures: ListenerFailure[] = [];
    let passedOn = true;
    if (this.#deps.chain !== undefined) {
      try {
        passedOn = await this.#deps.chain(event);
      } catch (error) {
        failures.push({ error });
        passedOn = false;
      }
    }
    if (passedOn)
      failures.push(...(await this.#emitter.emitSerial(event.type as AgentEventType, event as never)));
    failures.push(...(await this.#emitter.emitSerial('event', event)));
    return failures;
  }

  async #dispatch(p: Prepared): Promise<void> {
    const { event } = p;
    const endTurn = this.#deps.turnStarted?.(event);
    let failures: ListenerFailure[];
    try {
      failures = await this.#step(event, 'handle', () => this.#handle(event));
    } finally {
      endTurn?.();
    }
    this.outcomes.count('handled');
    for (const f of failures) this.outcomes.handlerFailed(event, event.type, f.error);
    await completeAll(p.claims);
  }

  #settle(claims: readonly OwnedClaim[], how: 'complete' | 'release'): Promise<void> {
    return how === 'complete' ? completeAll(claims) : releaseAll(claims);
  }

  #context(inbound: InboundEvent, transport: AgentTransport, deliveryId: string): EventContext {
    return { deliveryId, transport, eventType: inbound.type, metadata: inbound.metadata };
  }

  #build(transport: AgentTransport, deliveryId: string): BuildContext {
    return {
      transport,
      deliveryId,
      nowMs: this.#deps.clock.now(),
      send: (conversationId, payload, options) => this.#deps.send(conversationId, payload, options),
      stream: this.#deps.stream,
    };
  }
}
