/**
 * What the event pipeline works on and what it needs from the rest of the
 * Agent. Every dependency is a small structural interface, so the pipeline
 * is tested without a server and the Agent wires in the REST client, key
 * store and key directory.
 *
 * @module
 */
import type { QuoteCache } from '../../messaging/quote-cache.js';
import type { MessageAction } from '../../core/protocol/message-actions.js';
import type { StreamOpener } from '../streams/reply-stream.js';
import type { RetiredSigningKey } from '../../messaging/key-directory.js';
import type { SendOptions } from '../../messaging/sender.js';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import type { MessagePayload } from '../../core/protocol/payloads.js';
import type { DeliveryMetadata } from '../../core/protocol/webhook-delivery.js';
import type { ObjectRef } from '../../core/protocol/object-ref.js';
import type { KeyRing } from '../../crypto/key-store/key-ring.js';
import type { CryptoBackend } from '../../crypto/backend/types.js';
import type { OpenPoolStats, OpenWorkerPool } from '../../crypto/open-pool/pool.js';
import type { AnyAgentEvent, DecisionRefusalReason, IncomingMessage, SendResult } from '../events.js';
import type { OpenedEnvelope } from '../../crypto/open-options.js';
import type { FlowStats } from './flow-control.js';

/** One inbound event as either transport hands it over (wire field values, normalised names). */
export interface InboundEvent {
  /** The event type, known or not. */
  readonly type: string;
  /** The delivery id; undefined when a frame carried none (then only the message id de-duplicates). */
  readonly deliveryId: string | undefined;
  /** Base64 envelope, when inline. */
  readonly wireEnvelope: string | undefined;
  /** Object reference of an oversize envelope. */
  readonly ref: ObjectRef | undefined;
  /** Delivery metadata (unsigned). */
  readonly metadata: DeliveryMetadata | undefined;
  /** Cleartext payload of an event without envelope (e.g. `agent.governance`). */
  readonly payload: Readonly<Record<string, unknown>> | undefined;
  /** True when the service marked the frame as sent again (`redelivered`); for observers only. */
  readonly redelivered?: boolean;
}

/** Bytes of an object fetched through `GET /r2/<object_key>`. */
export interface FetchedObject {
  readonly bytes: Uint8Array;
  /** The `content-type` header, if any. */
  readonly contentType: string | undefined;
  readonly size: number;
}

/** Where the pipeline gets keys. */
export interface PipelineKeys {
  /** The agent's key ring (current pair plus retired pairs in grace). */
  ring(): KeyRing | Promise<KeyRing>;
  /** A sender's Ed25519 public key (`system` included); undefined when unknown. */
  signingKey(senderId: string): Promise<Uint8Array | undefined>;
  /** Forgets a cached sender key (its signature failed; it may have rotated). */
  invalidate(senderId: string): void;
  /**
   * A sender's retired signing keys in grace with their retirement times
   * (tried after the current key failed; see `retired-signing.ts`). Absent: none are tried.
   */
  retiredSigningKeys?(senderId: string): Promise<readonly RetiredSigningKey[]>;
}

/** Everything the pipeline needs. */
/**
 * The turn seam (#26): called where an event's handlers start; the function
 * it returns is called where they end (thrown or not). The status indicator
 * hooks here; a turn scheduler can wrap the same point.
 */
export type TurnStarted = (event: AnyAgentEvent) => (() => void) | undefined;

export interface PipelineDeps {
  /** This agent's id: the recipient id in envelopes. */
  readonly agentId: string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly keys: PipelineKeys;
  /** `GET /r2/<object_key>` with the agent token (rate-limited, retried). */
  fetchObject(objectKey: string): Promise<FetchedObject>;
  /** Sends a message (for `message.reply`). */
  send(conversationId: string, payload: MessagePayload | string, options?: SendOptions): Promise<SendResult>;
  /** Opens a streamed reply (for `message.replyStream`). */
  readonly stream?: StreamOpener | undefined;
  /** Crypto backend for `openAsync`. @defaultValue node:crypto */
  readonly backend?: CryptoBackend | undefined;
  /** Open legacy v1.0 envelopes (see `OpenOptions.acceptLegacyV10`). @defaultValue `false` */
  readonly acceptLegacyV10?: boolean | undefined;
  /** Worker threads that open envelopes during a burst (`openWorkers`); absent: always here. */
  readonly openPool?: OpenWorkerPool | undefined;
  /**
   * Checks a human decision (artifact answer, grant or manifest decision)
   * before any handler sees it; a refusal discards the event. Throws for a
   * failure that may pass (a key lookup), so the event comes again.
   */
  readonly vet?:
    ((event: AnyAgentEvent, opened: OpenedEnvelope) => Promise<VetRefusal | undefined>) | undefined;
  /** Texts of recent messages, for `replyTo` quotes. @defaultValue none (no quoted text) */
  readonly quotes?: QuoteCache | undefined;
  /** Handles an opened edit, delete or receipt (`'invalid'`: an action that does not parse). @defaultValue none (dropped) */
  readonly onAction?: ((message: IncomingMessage, action: MessageAction | 'invalid') => void) | undefined;
  /** The turn seam (status indicator). @defaultValue none */
  readonly turnStarted?: TurnStarted | undefined;
  /**
   * Runs the agent's middleware chain for an event, before its
   * `agent.on(type)` handlers; resolves `true` when the chain passed the
   * event on (no middleware handled it), so the handlers run. Absent: they
   * always run.
   */
  readonly chain?: ((event: AnyAgentEvent) => Promise<boolean>) | undefined;
}

/** The event types {@link PipelineDeps.vet} checks (human decisions); other events never wait for it. */
export const VETTED_EVENT_TYPES: ReadonlySet<string> = new Set([
  'artifact_response',
  'grant.decided',
  'grant.revoked',
  'agent.capability_changed',
]);

/** Why {@link PipelineDeps.vet} refused an event, and what the event is about. */
export interface VetRefusal {
  readonly reason: DecisionRefusalReason;
  /** The artifact id, grant id or manifest version, when the event names one. */
  readonly subject: string | undefined;
}

/**
 * Counters of the pipeline (monotonic since start, except `running`, `queued`
 * and the live flow-control figures `paused`, `inFlight`, `inFlightBytes`).
 */
export interface AgentStats extends FlowStats {
  /** Events taken in (after verification, before de-duplication). */
  readonly received: number;
  /** Events whose handlers ran (whether or not they threw). */
  readonly handled: number;
  /** Copies skipped as duplicates (by delivery id or message id). */
  readonly duplicates: number;
  /** Envelopes that could not be opened (discarded). */
  readonly decryptFailures: number;
  /** Decrypt failures by reason (`invalid_envelope` for INVALID_ENVELOPE). */
  readonly decryptFailuresByReason: Readonly<Record<string, number>>;
  /** Handler calls that threw. */
  readonly handlerErrors: number;
  /** Events discarded because their payload was invalid or not signed as required. */
  readonly invalid: number;
  /**
   * Events not processed because a step failed (ref fetch, key lookup); the
   * service delivers them again (webhook retry, or WebSocket redelivery when
   * acks are on).
   */
  readonly failed: number;
  /** Events left unhandled because the de-duplication store did not answer (delivered again). */
  readonly deferred: number;
  /** WebSocket deliveries acknowledged to the service. */
  readonly acked: number;
  /** Webhook requests refused (signature, skew, headers, body). */
  readonly rejected: number;
  /** Handler tasks running now. */
  readonly running: number;
  /** Events waiting for their conversation's turn. */
  readonly queued: number;
  /** Where envelopes were opened: worker threads alive now and counts (option `openWorkers`). */
  readonly openWorkers: OpenPoolStats;
}
