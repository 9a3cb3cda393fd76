/**
 * The Agent's observer surface (#25, traces and metrics): where a delivery
 * is received, opened, handled and acknowledged, and where the agent sends,
 * streams and uploads. `agent.observe(observer)` registers one; the
 * `agent-messaging-sdk/otel` entry is such an observer. The SDK itself
 * imports no tracing library.
 *
 * Everything handed to an observer is an id, a type or a count: never
 * content, keys or tokens.
 *
 * @module
 */
import type { AgentTransport } from './events.js';
import type { ObservedStreamEnd } from './streams/writer.js';

export type { ObservedStreamEnd, ObservedStreamOutcome } from './streams/writer.js';

/** One delivery as the agent received it (unsigned delivery metadata: ids only). */
export interface ObservedDelivery {
  /** The delivery id; undefined when the frame carried none. */
  readonly deliveryId: string | undefined;
  /** The event type (`message.new`, …). */
  readonly eventType: string;
  /** The conversation named by the delivery metadata (unsigned), if any. */
  readonly conversationId: string | undefined;
  /** How it arrived. */
  readonly transport: AgentTransport;
  /** True when the service marked it as sent again (`redelivered` on a WebSocket frame). */
  readonly redelivered: boolean;
}

/**
 * The steps of one delivery: `open` (fetch `ref` and open the envelope),
 * `handle` (the middleware chain and the handlers), `ack` (the WebSocket
 * acknowledgement; by webhook the HTTP answer is the acknowledgement).
 */
export type ObservedStep = 'open' | 'handle' | 'ack';

/**
 * What became of a delivery: `handled`, `skipped` (a duplicate, or discarded
 * after a decrypt failure), `busy` (a copy is being handled), `retry` (it
 * comes again), `dropped` (abandoned by `close()`).
 */
export type ObservedOutcome = 'handled' | 'skipped' | 'busy' | 'retry' | 'dropped';

/** Follows one delivery from its arrival to its outcome. */
export interface DeliveryObserver {
  /**
   * Runs one step: must call `run` once, synchronously, and return what it
   * returns (a promise for `open` and `handle`), so that a tracer can make
   * the step's span the active one while it runs.
   */
  step<T>(step: ObservedStep, run: () => T): T;
  /** The delivery is done with (called once). */
  end(outcome: ObservedOutcome): void;
}

/**
 * An outbound operation: `send` (one sealed message), `stream` (a streamed
 * reply: `run` opens it, `streamEnd` tells when it is over), `upload` (a file).
 */
export interface ObservedOperation {
  readonly operation: 'send' | 'stream' | 'upload';
  readonly conversationId: string;
  /**
   * For `stream` only: resolves (never rejects) when the stream is over,
   * after `run` resolved with the writer; a stream left open never is. When
   * the opening fails (`run` rejects) it resolves with `failed` and no delta.
   */
  readonly streamEnd?: Promise<ObservedStreamEnd>;
}

/**
 * Receives what the agent does, as ids and types. Every member is optional
 * and is called synchronously on the agent's path: keep it cheap, and never throw.
 */
export interface AgentObserver {
  /** A delivery arrived; the returned observer follows it (undefined: not followed). */
  delivery?(info: ObservedDelivery): DeliveryObserver | undefined;
  /**
   * An outbound operation starts: must call `run` once and return what it
   * returns (a promise that settles when the operation is done).
   */
  operation?<T>(info: ObservedOperation, run: () => Promise<T>): Promise<T>;
}

/** Runs `run` through every observer's `operation` (outermost first). */
export function observeOperation<T>(
  observers: readonly AgentObserver[],
  info: ObservedOperation,
  run: () => Promise<T>,
): Promise<T> {
  let wrapped = run;
  for (let i = observers.length - 1; i >= 0; i--) {
    const o = observers[i]!;
    if (o.operation === undefined) continue;
    const inner = wrapped;
    wrapped = () => o.operation!(info, inner);
  }
  return wrapped();
}

/** One delivery observer over every observer's, or undefined when none follows it. */
export function observeDelivery(
  observers: readonly AgentObserver[],
  info: ObservedDelivery,
): DeliveryObserver | undefined {
  const each: DeliveryObserver[] = [];
  for (const o of observers) {
    const d = o.delivery?.(info);
    if (d !== undefined) each.push(d);
  }
  if (each.length === 0) return undefined;
  if (each.length === 1) return each[0];
  return {
    step<T>(step: ObservedStep, run: () => T): T {
      let wrapped = run;
      for (let i = each.length - 1; i >= 0; i--) {
        const inner = wrapped;
        const d = each[i]!;
        wrapped = () => d.step(step, inner);
      }
      return wrapped();
    },
    end(outcome: ObservedOutcome): void {
      for (const d of each) d.end(outcome);
    },
  };
}
