/**
 * The webhook side of the one pipeline: a webhook receiver whose steps are
 * the pipeline's own (the shared de-duplication store, `fetchRef`, `open`,
 * then {@link EventPipeline.handleOpened}), wrapped so that `close()` can
 * stop taking deliveries and wait for the ones in flight.
 *
 * Answers the service sees, beyond the receiver's own table:
 * - a handler error is reported on the agent's `error` channel and the
 *   delivery is acknowledged (200): a retry would hold every later delivery
 *   of the agent behind it (the service delivers one at a time per agent);
 * - a refused request (signature, skew, body) is logged at error level with a
 *   hint (first of each code, then a count per minute) and given to the
 *   `error` listeners: a wrong secret must never be silent;
 * - while the agent closes, new deliveries get 503 with `Retry-After`, and
 *   deliveries abandoned by the close timeout get 500, so the service
 *   delivers them again later.
 *
 * @module
 */
import type { Clock } from '../../core/clock.js';
import { isHandlerError } from '../../core/errors/guards.js';
import { TransportError } from '../../core/errors/transport-error.js';
import type { Logger } from '../../core/logger.js';
import type { OpenedEnvelope } from '../../crypto/open-options.js';
import type { DedupStore } from '../../webhook/dedup/types.js';
import type { WebhookDelivery } from '../../webhook/delivery.js';
import type { WebhookReceiverEvent } from '../../webhook/events.js';
import type { OpenOutcome } from '../../webhook/open-step.js';
import {
  createWebhookReceiverAroundOpen,
  type WebhookReceiver,
  type WebhookRequest,
} from '../../webhook/receiver.js';
import { errorTypeOf } from '../../core/errors/error-type.js';
import { errorResponse, type WebhookResponse } from '../../webhook/responses.js';
import type { WebhookSecretInput } from '../../webhook/secrets.js';
import { asAmsError } from './outcomes.js';
import type { EventPipeline } from './pipeline.js';
import type { InboundEvent } from './types.js';
import { RejectionReport } from './rejection-report.js';

/** Options of {@link createPipelineReceiver}. */
export interface PipelineReceiverOptions {
  readonly pipeline: EventPipeline;
  readonly secret: WebhookSecretInput;
  readonly dedup: DedupStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly claimLeaseMs: number;
  readonly respondEarly?: boolean | undefined;
  readonly inFlightRetryAfterSeconds?: number | undefined;
  readonly toleranceMs?: number | undefined;
  /** True once the agent is closing. */
  readonly closing: () => boolean;
}

/** The receiver plus what `close()` needs. */
export interface PipelineReceiver {
  /** Hand it to an adapter (`createNodeHandler`, `createExpressMiddleware`, …). */
  readonly receiver: WebhookReceiver;
  /** Resolves when no request is being handled. */
  idle(): Promise<void>;
}

/**
 * Retry-After of a delivery the agent is handling right now (the receiver's
 * own default, 10 s, suits long handlers behind a plain receiver; an agent's
 * copy in flight is usually a WebSocket backlog finishing after a mode switch).
 */
export const AGENT_IN_FLIGHT_RETRY_AFTER_SECONDS = 2;

/** Seconds a sender is asked to wait while the agent closes. */
export const CLOSING_RETRY_AFTER_SECONDS = 30;

const abandoned = new WeakSet<object>();

function closingError(): TransportError {
  const error = new TransportError({
    code: 'TRANSPORT_CLOSED',
    message: 'The agent closed before this delivery was handled; the service will deliver it again.',
  });
  abandoned.add(error);
  return error;
}

/** The pipeline's view of a webhook delivery. */
export function inboundOf(delivery: WebhookDelivery, deliveryId: string): InboundEvent {
  return {
    type: delivery.type,
    deliveryId,
    wireEnvelope: delivery.wire_envelope ?? undefined,
    ref: delivery.ref === undefined ? undefined : { ...delivery.ref },
    metadata: { ...delivery.metadata },
    payload: undefined,
  };
}

function report(
  pipeline: EventPipeline,
  logger: Logger,
  rejections: RejectionReport,
  event: WebhookReceiverEvent,
): void {
  const o = pipeline.outcomes;
  switch (event.type) {
    case 'rejected':
      o.count('rejected');
      rejections.rejected(event.error);
      return;
    case 'configurationError':
      o.error(event.error);
      return;
    case 'duplicate':
      if (event.state === 'busy') return;
      o.count('received');
      o.duplicate({
        deliveryId: event.deliveryId,
        messageId: undefined,
        by: 'delivery_id',
        transport: 'webhook',
      });
      return;
    case 'decryptFailure':
      o.decryptFailed(
        {
          deliveryId: event.deliveryId,
          transport: 'webhook',
          eventType: event.eventType,
          metadata: { ...event.metadata },
        },
        event.error,
      );
      return;
    case 'refFetchError':
      o.count('received');
      o.count('failed');
      o.error(asAmsError(event.error));
      return;
    case 'handlerError': {
      // Only `open` failures (other than decrypt failures) and abandoned deliveries get here.
      const cause = isHandlerError(event.error) ? event.error.cause : event.error;
      if (typeof cause === 'object' && cause !== null && abandoned.has(cause)) return;
      o.count('failed');
      o.error(asAmsError(cause));
      return;
    }
    case 'storeError':
      logger.warn('the de-duplication store failed', { operation: event.operation });
      return;
    default:
      return;
  }
}

/** Thrown inside the observed `open` step when it did not open (its span records `code`). */
class OpenStepFailed extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

/** The `error.type` of an open step that failed: the decrypt failure's code, or the error's. */
function openFailureType(event: WebhookReceiverEvent): string {
  if (event.type === 'decryptFailure') return event.code;
  return 'error' in event ? errorTypeOf(event.error) : event.type;
}

/**
 * Follows a webhook delivery from its open step (traces: receive → open →
 * handle). Remembers the inbound event of each opened delivery for the handler.
 */
function observeOpen(pipeline: EventPipeline, inbounds: WeakMap<WebhookDelivery, InboundEvent>) {
  return async <T>(
    delivery: WebhookDelivery,
    deliveryId: string,
    open: () => Promise<OpenOutcome<T>>,
  ): Promise<OpenOutcome<T>> => {
    const inbound = inboundOf(delivery, deliveryId);
    const d = pipeline.followWebhook(inbound);
    if (d === undefined) return open();
    let failed: OpenOutcome<T> | undefined;
    try {
      const opened = await d.step('open', async () => {
        const outcome = await open();
        if (!outcome.ok) {
          failed = outcome;
          throw new OpenStepFailed(openFailureType(outcome.event));
        }
        return outcome;
      });
      inbounds.set(delivery, inbound);
      return opened;
    } catch (error) {
      if (failed === undefined || failed.ok) throw error;
      // A decrypt failure is acknowledged (skipped); anything else comes again.
      d.end(failed.event.type === 'decryptFailure' ? 'skipped' : 'retry');
      return failed;
    }
  };
}

/**
 * Builds the agent's webhook receiver over the pipeline.
 *
 * @throws {@link ConfigurationError} for a bad secret or tolerance (from the receiver).
 */
export function createPipelineReceiver(options: PipelineReceiverOptions): PipelineReceiver {
  const { pipeline, logger } = options;
  const rejections = new RejectionReport(options.clock, logger, (error) => pipeline.outcomes.notify(error));
  const inbounds = new WeakMap<WebhookDelivery, InboundEvent>();
  const inner = createWebhookReceiverAroundOpen<OpenedEnvelope>(
    {
      secret: options.secret,
      dedup: options.dedup,
      clock: options.clock,
      claimLeaseMs: options.claimLeaseMs,
      ...(options.respondEarly === undefined ? {} : { respondEarly: options.respondEarly }),
      inFlightRetryAfterSeconds: options.inFlightRetryAfterSeconds ?? AGENT_IN_FLIGHT_RETRY_AFTER_SECONDS,
      ...(options.toleranceMs === undefined ? {} : { toleranceMs: options.toleranceMs }),
      fetchRef: (ref) => pipeline.fetchRef(ref),
      open: (bytes, delivery) => {
        pipeline.outcomes.count('received');
        return pipeline.open(bytes, delivery.ref !== undefined);
      },
      handler: async (event) => {
        const inbound = inbounds.get(event.delivery) ?? inboundOf(event.delivery, event.deliveryId);
        const outcome = await pipeline.handleOpened(inbound, event.deliveryId, event.payload);
        if (outcome === 'dropped') throw closingError();
      },
      onEvent: (event) => report(pipeline, logger, rejections, event),
    },
    observeOpen(pipeline, inbounds),
  );
  let active = 0;
  const waiters: (() => void)[] = [];
  const receiver: WebhookReceiver = {
    verifier: inner.verifier,
    respondToError: (error) => inner.respondToError(error),
    drain: () => inner.drain(),
    async handle(request: WebhookRequest): Promise<WebhookResponse> {
      if (options.closing()) {
        return errorResponse(
          503,
          'AGENT_CLOSING',
          'The agent is shutting down; retry later.',
          { retry_after_ms: CLOSING_RETRY_AFTER_SECONDS * 1000 },
          { 'retry-after': String(CLOSING_RETRY_AFTER_SECONDS) },
        );
      }
      active += 1;
      try {
        return await inner.handle(request);
      } finally {
        active -= 1;
        if (active === 0) for (const resolve of waiters.splice(0)) resolve();
      }
    },
  };
  return {
    receiver,
    idle: async () => {
      if (active > 0) await new Promise<void>((resolve) => waiters.push(resolve));
      await inner.drain();
    },
  };
}
