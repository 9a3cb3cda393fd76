/**
 * `agent-messaging-sdk/otel`: OpenTelemetry traces and metrics for an
 * `Agent` (docs/observability.md). `@opentelemetry/api` is an optional
 * peer dependency: only this entry imports it.
 *
 * One trace per delivery: a `receive` span (kind consumer) with the children
 * `open` (fetch and open the envelope), `handle` (the handlers, the active
 * span while they run) and `ack` (the WebSocket acknowledgement); a span for
 * each `send`, `stream` (from its opening to its end, with its outcome) and
 * `upload`. Metrics: deliveries, redeliveries, decrypt failures by reason,
 * 429s, handler duration.
 *
 * Attributes are ids, types and counts only (agent, conversation and
 * delivery ids, event type, outcome, reason): never content, keys or tokens.
 *
 * @example
 * ```ts
 * import { instrument } from 'agent-messaging-sdk/otel';
 * const stop = instrument(agent); // the global tracer and meter providers
 * ```
 * @module otel
 */
import {
  context,
  metrics,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type MeterProvider,
  type Span,
  type TracerProvider,
} from '@opentelemetry/api';
import { errorTypeOf } from './core/errors/error-type.js';
import type {
  AgentObserver,
  DeliveryObserver,
  ObservedDelivery,
  ObservedOperation,
  ObservedStep,
  ObservedStreamEnd,
} from './agent/observer.js';

// The observer surface `agent.observe()` takes (kept out of the root entry's 80 names).
export type {
  AgentObserver,
  DeliveryObserver,
  ObservedDelivery,
  ObservedOperation,
  ObservedOutcome,
  ObservedStep,
  ObservedStreamEnd,
  ObservedStreamOutcome,
} from './agent/observer.js';

/** What a decrypt failure tells the metrics (a subset of the Agent's `decryptFailure` event). */
export interface ObservedDecryptFailure {
  readonly reason: string | undefined;
  readonly code: string;
  readonly eventType: string;
}

/** What a 429 tells the metrics (a subset of the Agent's `rateLimited` event). */
export interface ObservedRateLimit {
  readonly code: string;
  /** `METHOD /path`: only the method is recorded. */
  readonly request: string;
}

/**
 * What {@link instrument} needs of an Agent (an `Agent` is one). Structural,
 * so this entry's declarations do not copy the Agent class.
 */
export interface InstrumentableAgent {
  readonly agentId: string;
  observe(observer: AgentObserver): () => void;
  on(event: 'decryptFailure', listener: (failure: ObservedDecryptFailure) => unknown): unknown;
  on(event: 'rateLimited', listener: (info: ObservedRateLimit) => unknown): unknown;
  off(event: 'decryptFailure', listener: (failure: ObservedDecryptFailure) => unknown): unknown;
  off(event: 'rateLimited', listener: (info: ObservedRateLimit) => unknown): unknown;
}

/** Options of {@link instrument}. */
export interface InstrumentOptions {
  /** Where spans go. @defaultValue the global provider (`trace.getTracerProvider()`) */
  readonly tracerProvider?: TracerProvider;
  /** Where metrics go. @defaultValue the global provider (`metrics.getMeterProvider()`) */
  readonly meterProvider?: MeterProvider;
}

/** The instrumentation scope name of the tracer and the meter. */
export const INSTRUMENTATION_SCOPE = 'agent-messaging-sdk';

/** `messaging.system` of every span. */
export const MESSAGING_SYSTEM = 'agent-messaging';

/** Names of the metrics this entry records. */
export const METRIC_NAMES = {
  /** Counter: deliveries done with, by `ams.event.type`, `ams.transport`, `ams.outcome`. */
  deliveries: 'ams.deliveries',
  /** Counter: deliveries the service sent again (or whose id this process saw before). */
  redeliveries: 'ams.redeliveries',
  /** Counter: envelopes that could not be opened, by `ams.decrypt.reason` and `error.type`. */
  decryptFailures: 'ams.decrypt_failures',
  /** Counter: 429 answers of the service, by `ams.rate_limit.code` and `http.request.method`. */
  rateLimited: 'ams.rate_limited',
  /** Histogram (seconds): how long the handlers of a delivery ran, by `ams.event.type` and `ams.outcome`. */
  handlerDuration: 'ams.handler.duration',
} as const;

/** Delivery ids remembered to recognise a redelivery that carries no `redelivered` mark (webhook retries). */
const SEEN_IDS = 4096;

/** Span kind and `messaging.operation.type` of each delivery step. */
const STEP_KIND: Readonly<Record<ObservedStep, string>> = {
  open: 'process',
  handle: 'process',
  ack: 'settle',
};

/** Span kind and `messaging.operation.type` of each operation. */
const OPERATION_KIND = {
  send: { kind: SpanKind.PRODUCER, type: 'send' },
  stream: { kind: SpanKind.PRODUCER, type: 'create' },
  upload: { kind: SpanKind.CLIENT, type: 'send' },
} as const;

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function'
  );
}

/** Marks `span` failed with an error's code or class (`errorTypeOf`: never its message). */
function failSpan(span: Span, type: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
  span.setAttribute('error.type', type);
}

/** Ends a `stream` span with its outcome and counts; a failure or a timeout is an error. */
function endStream(span: Span, end: ObservedStreamEnd): void {
  span.setAttributes({
    ...(end.streamId === undefined ? {} : { 'ams.stream.id': end.streamId }),
    'ams.stream.outcome': end.outcome,
    'ams.stream.deltas': end.deltas,
    'ams.stream.parts': end.parts,
  });
  if (end.outcome === 'failed' || end.outcome === 'timed_out') failSpan(span, end.errorType ?? 'unknown');
  span.end();
}

/** Ends `span` when `result` settles (at once for a plain value); records a rejection. */
function endWith<T>(span: Span, result: T, onEnd?: (failed: boolean) => void): T {
  if (!isThenable(result)) {
    span.end();
    onEnd?.(false);
    return result;
  }
  return (result as unknown as Promise<unknown>).then(
    (value) => {
      span.end();
      onEnd?.(false);
      return value;
    },
    (error: unknown) => {
      failSpan(span, errorTypeOf(error));
      span.end();
      onEnd?.(true);
      throw error;
    },
  ) as T;
}

/**
 * Instruments `agent` with OpenTelemetry: spans for each delivery (receive →
 * open → handle → ack) and each send, stream and upload, and the metrics of
 * {@link METRIC_NAMES}. Returns a function that stops it.
 *
 * @example
 * ```ts
 * const stop = instrument(agent, { tracerProvider, meterProvider });
 * // … later
 * stop();
 * ```
 */
export function instrument(agent: InstrumentableAgent, options: InstrumentOptions = {}): () => void {
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_SCOPE);
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION_SCOPE);
  const deliveries = meter.createCounter(METRIC_NAMES.deliveries, {
    description: 'Deliveries the agent was done with, by outcome.',
  });
  const redeliveries = meter.createCounter(METRIC_NAMES.redeliveries, {
    description: 'Deliveries the service sent again.',
  });
  const decryptFailures = meter.createCounter(METRIC_NAMES.decryptFailures, {
    description: 'Envelopes that could not be opened, by reason.',
  });
  const rateLimited = meter.createCounter(METRIC_NAMES.rateLimited, {
    description: 'HTTP 429 answers of the service (despite the client-side limits).',
  });
  const handlerDuration = meter.createHistogram(METRIC_NAMES.handlerDuration, {
    description: 'How long the handlers of one delivery ran.',
    unit: 's',
  });
  const agentId = agent.agentId;
  // The last SEEN_IDS delivery ids: a set, and a ring giving the oldest to forget (a Set's own
  // first entry is slow to reach once many were deleted before it).
  const seen = new Set<string>();
  const ring: string[] = [];
  let oldest = 0;

  const remember = (id: string | undefined): boolean => {
    if (id === undefined) return false;
    if (seen.has(id)) return true;
    seen.add(id);
    if (ring.length < SEEN_IDS) ring.push(id);
    else {
      seen.delete(ring[oldest]!);
      ring[oldest] = id;
      oldest = (oldest + 1) % SEEN_IDS;
    }
    return false;
  };

  const baseAttributes = (conversationId: string | undefined): Attributes => ({
    'messaging.system': MESSAGING_SYSTEM,
    'messaging.client.id': agentId,
    'ams.agent.id': agentId,
    ...(conversationId === undefined
      ? {}
      : { 'messaging.destination.name': conversationId, 'ams.conversation.id': conversationId }),
  });

  const follow = (info: ObservedDelivery): DeliveryObserver => {
    const redelivered = remember(info.deliveryId) || info.redelivered;
    const attributes: Attributes = {
      ...baseAttributes(info.conversationId),
      'messaging.operation.type': 'receive',
      'messaging.operation.name': 'receive',
      'ams.event.type': info.eventType,
      'ams.transport': info.transport,
      'ams.redelivered': redelivered,
      ...(info.deliveryId === undefined
        ? {}
        : { 'messaging.message.id': info.deliveryId, 'ams.delivery.id': info.deliveryId }),
    };
    const root = tracer.startSpan(`receive ${info.eventType}`, { kind: SpanKind.CONSUMER, attributes });
    const parent = trace.setSpan(context.active(), root);
    const metricAttributes: Attributes = {
      'ams.event.type': info.eventType,
      'ams.transport': info.transport,
    };
    if (redelivered) redeliveries.add(1, metricAttributes);
    let ended = false;
    return {
      step<T>(step: ObservedStep, run: () => T): T {
        const span = tracer.startSpan(
          `${step} ${info.eventType}`,
          {
            kind: SpanKind.INTERNAL,
            // The root carries the ids; a step names itself and its delivery only (cheaper).
            attributes: {
              'messaging.system': MESSAGING_SYSTEM,
              'messaging.operation.type': STEP_KIND[step],
              'messaging.operation.name': step,
              ...(info.deliveryId === undefined ? {} : { 'ams.delivery.id': info.deliveryId }),
            },
          },
          parent,
        );
        const started = performance.now();
        const onEnd =
          step === 'handle'
            ? (failed: boolean) =>
                handlerDuration.record((performance.now() - started) / 1000, {
                  ...metricAttributes,
                  'ams.outcome': failed ? 'failed' : 'handled',
                })
            : undefined;
        let result: T;
        try {
          result = context.with(trace.setSpan(parent, span), run);
        } catch (error) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: errorTypeOf(error) });
          span.end();
          onEnd?.(true);
          throw error;
        }
        return endWith(span, result, onEnd);
      },
      end(outcome): void {
        if (ended) return;
        ended = true;
        root.setAttribute('ams.outcome', outcome);
        root.end();
        deliveries.add(1, { ...metricAttributes, 'ams.outcome': outcome });
      },
    };
  };

  const observer: AgentObserver = {
    delivery: follow,
    operation<T>(info: ObservedOperation, run: () => Promise<T>) {
      const how = OPERATION_KIND[info.operation];
      const span = tracer.startSpan(info.operation, {
        kind: how.kind,
        attributes: {
          ...baseAttributes(info.conversationId),
          'messaging.operation.type': how.type,
          'messaging.operation.name': info.operation,
        },
      });
      let result: Promise<T>;
      try {
        result = context.with(trace.setSpan(context.active(), span), run);
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorTypeOf(error) });
        span.end();
        throw error;
      }
      const streamEnd = info.streamEnd;
      if (streamEnd === undefined) return endWith(span, result);
      // A stream's span lasts until the stream is over (its opening failing ends it at once).
      return result.then(
        (writer) => {
          void streamEnd.then((end) => endStream(span, end));
          return writer;
        },
        (error: unknown) => {
          // Refused at its opening (or failing before it opened): no stream id, no counts.
          span.setAttribute('ams.stream.outcome', 'failed');
          failSpan(span, errorTypeOf(error));
          span.end();
          throw error;
        },
      );
    },
  };

  const onDecryptFailure = (f: ObservedDecryptFailure): void => {
    decryptFailures.add(1, {
      'ams.decrypt.reason': f.reason ?? 'invalid_envelope',
      'error.type': f.code,
      'ams.event.type': f.eventType,
    });
  };
  const onRateLimited = (info: ObservedRateLimit): void => {
    rateLimited.add(1, {
      'ams.rate_limit.code': info.code,
      'http.request.method': info.request.split(' ', 1)[0] ?? 'unknown',
    });
  };
  const unobserve = agent.observe(observer);
  agent.on('decryptFailure', onDecryptFailure);
  agent.on('rateLimited', onRateLimited);
  return () => {
    unobserve();
    agent.off('decryptFailure', onDecryptFailure);
    agent.off('rateLimited', onRateLimited);
  };
}
