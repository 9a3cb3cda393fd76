/**
 * The pipeline's bookkeeping: counters, the one error channel, decrypt
 * failures and duplicates. Shared by both transports' paths.
 *
 * @module
 */
import type { AmsError } from '../../core/errors/base.js';
import { isAmsError, isCryptoError, isValidationError } from '../../core/errors/guards.js';
import { HandlerError } from '../../core/errors/handler-error.js';
import { CryptoError } from '../../core/errors/crypto-error.js';
import type { OpenedEnvelope } from '../../crypto/open-options.js';
import { TransportError } from '../../core/errors/transport-error.js';
import type { Logger } from '../../core/logger.js';
import type { DeliveryMetadata } from '../../core/protocol/webhook-delivery.js';
import type { TypedEmitter } from '../emitter.js';
import type { AgentListenerArgs, AgentTransport, DuplicateInfo } from '../events.js';
import type { OwnedClaim } from '../dedup.js';
import type { FlowStats } from './flow-control.js';
import type { AgentStats, VetRefusal } from './types.js';

type PipelineStats = Omit<AgentStats, keyof FlowStats | 'openWorkers'>;
type Counter = Exclude<keyof PipelineStats, 'decryptFailuresByReason' | 'running' | 'queued'>;

/** What the outcome steps need to know about the event at hand. */
export interface EventContext {
  readonly deliveryId: string;
  readonly transport: AgentTransport;
  readonly eventType: string;
  readonly metadata: DeliveryMetadata | undefined;
}

/** Completes every claim (the event is done with, handled or discarded). */
export async function completeAll(claims: readonly OwnedClaim[]): Promise<void> {
  for (const c of claims) await c.complete();
}

/** Releases every claim (a later copy should be handled). */
export async function releaseAll(claims: readonly OwnedClaim[]): Promise<void> {
  for (const c of claims) await c.release();
}

/** Counters, the error channel and the reports of the pipeline. */
export class Outcomes {
  readonly #emitter: TypedEmitter<AgentListenerArgs>;
  readonly #logger: Logger;
  readonly #counts: Record<Counter, number> = {
    received: 0,
    handled: 0,
    duplicates: 0,
    decryptFailures: 0,
    handlerErrors: 0,
    invalid: 0,
    failed: 0,
    deferred: 0,
    acked: 0,
    rejected: 0,
  };
  readonly #byReason: Record<string, number> = {};

  constructor(emitter: TypedEmitter<AgentListenerArgs>, logger: Logger) {
    this.#emitter = emitter;
    this.#logger = logger;
  }

  /** Adds one to a counter. */
  count(counter: Counter): void {
    this.#counts[counter] += 1;
  }

  /** A snapshot of the counters, with the scheduler's live figures. */
  stats(running: number, queued: number): PipelineStats {
    return { ...this.#counts, decryptFailuresByReason: { ...this.#byReason }, running, queued };
  }

  /** The one error channel: the `error` listeners, or the log when there is none. */
  error(error: AmsError): void {
    if (this.#emitter.listenerCount('error') > 0) {
      this.#emitter.emit('error', error);
      return;
    }
    this.#logger.error(`agent error: ${error.message} (add an "error" listener to handle it)`, {
      name: error.name,
      code: error.code,
      ...stackFields(error),
    });
  }

  /** Gives `error` to the `error` listeners only (the caller logs it its own way). */
  notify(error: AmsError): boolean {
    if (this.#emitter.listenerCount('error') === 0) return false;
    this.#emitter.emit('error', error);
    return true;
  }

  /** A handler threw: reported with the event attached. */
  handlerFailed(event: unknown, type: string, cause: unknown): void {
    this.count('handlerErrors');
    this.error(
      new HandlerError({ message: `A ${type} handler threw: ${describeCause(cause)}`, event, cause }),
    );
  }

  /** A copy was skipped. */
  duplicate(info: DuplicateInfo): void {
    this.count('duplicates');
    this.#logger.debug('duplicate event skipped', { deliveryId: info.deliveryId, by: info.by });
    this.#emitter.emit('duplicate', info);
  }

  /** An envelope could not be opened: counted, reported, discarded. */
  decryptFailed(ctx: EventContext, error: CryptoError): void {
    this.count('decryptFailures');
    const key = error.code === 'INVALID_ENVELOPE' ? 'invalid_envelope' : (error.reason ?? 'unknown');
    this.#byReason[key] = (this.#byReason[key] ?? 0) + 1;
    this.#logger.warn('an envelope could not be opened; the message was discarded', {
      deliveryId: ctx.deliveryId,
      eventType: ctx.eventType,
      code: error.code,
      reason: error.reason ?? 'none',
    });
    this.#emitter.emit('decryptFailure', {
      deliveryId: ctx.deliveryId,
      transport: ctx.transport,
      eventType: ctx.eventType,
      reason: error.reason,
      code: error.code === 'INVALID_ENVELOPE' ? 'INVALID_ENVELOPE' : 'DECRYPT_FAILURE',
      conversationId: ctx.metadata?.conversation_id,
      senderId: ctx.metadata?.sender_id,
      error,
    });
  }

  /** A human decision was refused: counted as invalid, logged (ids only), reported, discarded. */
  decisionRefused(
    ctx: EventContext,
    opened: Pick<OpenedEnvelope, 'senderId' | 'conversationId'>,
    refusal: VetRefusal,
  ): void {
    this.count('invalid');
    this.#logger.warn('a human decision was refused; the event was discarded', {
      deliveryId: ctx.deliveryId,
      eventType: ctx.eventType,
      reason: refusal.reason,
    });
    const error = new CryptoError({
      code: 'DECISION_REFUSED',
      message: `A ${ctx.eventType} event was refused: ${refusal.reason}.`,
      refusal: refusal.reason,
    });
    this.#emitter.emit('decisionRefused', {
      eventType: ctx.eventType,
      reason: refusal.reason,
      senderId: opened.senderId,
      conversationId: opened.conversationId,
      subject: refusal.subject,
      deliveryId: ctx.deliveryId,
      transport: ctx.transport,
      error,
    });
  }

  /**
   * A step failed before the handler. Returns what to do with the claims:
   * `complete` when a retry cannot help (decrypt failure, invalid payload),
   * `release` when it may (network, key lookup, key store).
   */
  stepFailed(ctx: EventContext, error: unknown): 'complete' | 'release' {
    if (isCryptoError(error, 'DECRYPT_FAILURE') || isCryptoError(error, 'INVALID_ENVELOPE')) {
      this.decryptFailed(ctx, error);
      return 'complete';
    }
    if (isValidationError(error)) {
      this.count('invalid');
      this.#logger.warn('an event did not fit its type and was discarded', {
        deliveryId: ctx.deliveryId,
        eventType: ctx.eventType,
      });
      this.error(error);
      return 'complete';
    }
    this.count('failed');
    this.#logger.warn('an event could not be processed', {
      deliveryId: ctx.deliveryId,
      eventType: ctx.eventType,
      error: (error as Error)?.name,
    });
    this.error(asAmsError(error));
    return 'release';
  }
}

/** `name: message` of what a handler threw (anything may be thrown). */
export function describeCause(cause: unknown): string {
  if (cause instanceof Error) return `${cause.name}: ${cause.message}`;
  try {
    return typeof cause === 'string' ? cause : String(JSON.stringify(cause) ?? cause);
  } catch {
    return Object.prototype.toString.call(cause);
  }
}

/** The stack of an error's cause (else its own), for the log; nothing when there is none. */
function stackFields(error: AmsError): { stack?: string } {
  const source = error.cause instanceof Error ? error.cause : error;
  return typeof source.stack === 'string' ? { stack: source.stack } : {};
}

/** An SDK error for anything thrown. */
export function asAmsError(error: unknown): AmsError {
  if (isAmsError(error)) return error;
  return new TransportError({ code: 'TRANSPORT_PROTOCOL', message: 'An event step failed.', cause: error });
}
