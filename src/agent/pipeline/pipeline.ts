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
 * `decrypt_failure` and the message is discarded; a handler error goes to
 * the `error` channel with the event attached; other conversations go on.
 *
 * @module
 */
import type { OpenedEnvelope } from '../../crypto/open-options.js';
import type { EventDedup, OwnedClaim } from '../dedup.js';
import type { TypedEmitter } from '../emitter.js';
import type {
  AgentEventType,
  AgentListenerArgs,
  AgentTransport,
  AnyAgentEvent,
  CloseResult,
} from '../events.js';
import type { OrderedScheduler, TaskOutcome } from '../ordering.js';
import { eventFromCleartext, eventFromEnvelope, type BuildContext } from './build-event.js';
import { deliveryRefusal } from './delivery-checks.js';
import { fetchRef, openEnvelope, type RefLike } from './open-envelope.js';
import { IDLE_FLOW_STATS, type FlowStats } from './flow-control.js';
import { completeAll, Outcomes, releaseAll, type EventContext } from './outcomes.js';
import type { AgentStats, InboundEvent, PipelineDeps } from './types.js';

/** Options of {@link EventPipeline}. */
export interface EventPipelineOptions {
  readonly deps: PipelineDeps;
  readonly dedup: EventDedup;
  readonly scheduler: OrderedScheduler;
  readonly emitter: TypedEmitter<AgentListenerArgs>;
  /** Events whose crypto steps may run at once (WebSocket). @defaultValue `64` */
  readonly prepareConcurrency?: number;
}

/** A typed event ready for its handlers, with the claims to settle afterwards. */
interface Prepared {
  readonly event: AnyAgentEvent;
  readonly claims: readonly OwnedClaim[];
}

/** The conversation lane of an event (`system` when it names none). */
export function laneOf(inbound: InboundEvent): string {
  return inbound.metadata?.conversation_id ?? 'system';
}

/** The pipeline. */
export class EventPipeline {
  readonly outcomes: Outcomes;
  readonly #deps: PipelineDeps;
  readonly #dedup: EventDedup;
  readonly #scheduler: OrderedScheduler;
  readonly #emitter: TypedEmitter<AgentListenerArgs>;
  readonly #prepareLimit: number;
  #preparing = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(options: EventPipelineOptions) {
    this.#deps = options.deps;
    this.#dedup = options.dedup;
    this.#scheduler = options.scheduler;
    this.#emitter = options.emitter;
    this.#prepareLimit = options.prepareConcurrency ?? 64;
    this.outcomes = new Outcomes(options.emitter, options.deps.logger);
  }

  /** Counters and live figures, with the WebSocket flow-control figures given. */
  stats(flow: FlowStats = IDLE_FLOW_STATS): AgentStats {
    return { ...this.outcomes.stats(this.#scheduler.running, this.#scheduler.queued), ...flow };
  }

  /**
   * Takes one event from the WebSocket. Returns at once; the returned
   * promise (for tests and benchmarks) settles when the event is done with.
   */
  ingest(inbound: InboundEvent, transport: AgentTransport = 'websocket'): Promise<TaskOutcome> {
    this.outcomes.count('received');
    const prepared = this.#gated(() => this.#prepare(inbound, transport));
    const run = this.#scheduler.push(laneOf(inbound), async () => {
      const p = await prepared;
      if (p !== undefined) await this.#dispatch(p);
    });
    return run.then(async (outcome) => {
      if (outcome === 'dropped') {
        const p = await prepared;
        if (p !== undefined) await releaseAll(p.claims);
      }
      return outcome;
    });
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
    const claims: OwnedClaim[] = [];
    const p = await this.#fromOpened(inbound, 'webhook', deliveryId, opened, claims);
    if (p === undefined) return 'done';
    const outcome = await this.#scheduler.push(laneOf(inbound), () => this.#dispatch(p));
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
    const clock = this.#deps.clock;
    let timer: ReturnType<typeof clock.setTimeout> | undefined;
    const timedOut = await Promise.race([
      this.#scheduler.idle().then(() => false),
      new Promise<boolean>((resolve) => {
        timer = clock.setTimeout(() => resolve(true), timeoutMs);
      }),
    ]);
    if (timer !== undefined) clock.clearTimeout(timer);
    if (!timedOut) return { drained: true, abandoned: 0 };
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

  async #prepare(inbound: InboundEvent, transport: AgentTransport): Promise<Prepared | undefined> {
    const deliveryId = inbound.deliveryId ?? '';
    const claims: OwnedClaim[] = [];
    if (inbound.deliveryId !== undefined) {
      const c = await this.#dedup.claimDelivery(inbound.deliveryId);
      if (c.status === 'duplicate') {
        this.outcomes.duplicate({ deliveryId, messageId: undefined, by: 'delivery_id', transport });
        return undefined;
      }
      claims.push(c.claim);
    }
    const ctx = this.#context(inbound, transport, deliveryId);
    try {
      if (inbound.wireEnvelope === undefined && inbound.ref === undefined) {
        const event = eventFromCleartext(inbound, this.#build(transport, deliveryId));
        return { event, claims };
      }
      const referenced = inbound.ref !== undefined;
      const input = inbound.ref !== undefined ? await this.fetchRef(inbound.ref) : inbound.wireEnvelope!;
      const opened = await this.open(input, referenced);
      return await this.#fromOpened(inbound, transport, deliveryId, opened, claims);
    } catch (error) {
      await this.#settle(claims, this.outcomes.stepFailed(ctx, error));
      return undefined;
    }
  }

  async #fromOpened(
    inbound: InboundEvent,
    transport: AgentTransport,
    deliveryId: string,
    opened: OpenedEnvelope,
    claims: OwnedClaim[],
  ): Promise<Prepared | undefined> {
    // Type, sender and age are checked before the message id is claimed, so a
    // relabelled or stale copy cannot make the genuine one look like a duplicate.
    const refused = deliveryRefusal(opened, inbound.type, this.#deps.clock.now());
    if (refused !== undefined) {
      const ctx = this.#context(inbound, transport, deliveryId);
      await this.#settle(claims, this.outcomes.stepFailed(ctx, refused));
      return undefined;
    }
    const m = await this.#dedup.claimMessage(opened.senderId, opened.messageId);
    if (m.status === 'duplicate') {
      this.outcomes.duplicate({ deliveryId, messageId: opened.messageId, by: 'message_id', transport });
      await completeAll(claims);
      return undefined;
    }
    claims.push(m.claim);
    try {
      return { event: eventFromEnvelope(inbound, opened, this.#build(transport, deliveryId)), claims };
    } catch (error) {
      const ctx = this.#context(inbound, transport, deliveryId);
      await this.#settle(claims, this.outcomes.stepFailed(ctx, error));
      return undefined;
    }
  }

  async #dispatch(p: Prepared): Promise<void> {
    const { event } = p;
    const failures = [
      ...(await this.#emitter.emitSerial(event.type as AgentEventType, event as never)),
      ...(await this.#emitter.emitSerial('event', event)),
    ];
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
    };
  }
}
