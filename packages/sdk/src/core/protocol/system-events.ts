/**
 * Which events the service itself originates: the one list of event types the
 * reference server seals with the system sender, and the rule receivers
 * apply to every sealed delivery (Agent and UserClient alike):
 *
 * 1. a v1.1 envelope's signed event type must equal the delivery's `type`
 *    (a relay cannot relabel a payload that happens to fit another type);
 * 2. a type of {@link SYSTEM_SEALED_EVENT_TYPES} must be signed by the system sender;
 * 3. the system sender never signs a type of {@link PEER_SEALED_EVENT_TYPES}
 *    (messages, streams, reactions: the service cannot speak in a
 *    conversation as `system`, start a stream or react);
 * 4. an `artifact_response` signed by the system sender is only a service
 *    denial ({@link systemPayloadProblem}): the service may deny an artifact
 *    (`user_timeout`, …), never approve or answer it for a human.
 *
 * Other types (the WebSocket-only service events) are not attributed by the
 * service interface: either sender is accepted, and in v1.1 the signed type
 * must still match.
 *
 * @module
 */
import { SERVICE_DENIED_REASONS } from './artifacts.js';
import { PRESENCE_FRAMES } from './service-names.js';

/** Sender id of the events the service originates (the system sender). */
export const SYSTEM_SENDER_ID = 'system';

/**
 * Every event type the service seals with the system sender, and only those:
 * relation changes, capability changes, delivery-failure notices, the
 * data-grant events (`grant.revoked`, `grant.decided`: docs/grants.md) and the
 * group events (membership changes, key versions).
 */
export const SYSTEM_SEALED_EVENT_TYPES = [
  'relation.established',
  'relation.revoked',
  'relation.suspended',
  'relation.restored',
  'agent.capability_changed',
  'delivery.failed',
  'grant.revoked',
  'grant.decided',
  'group.updated',
  'system.group_key_rotated',
] as const;
/** An event type the service seals with the system sender. */
export type SystemSealedEventType = (typeof SYSTEM_SEALED_EVENT_TYPES)[number];

/**
 * The payload of a `delivery.failed` notice, signed by the system sender: a
 * message the reader sent waited too long in a recipient's queue and was
 * dropped (the reference server: 24 h in an agent's pending queue). A
 * UserClient receives it as a message from `system`, so
 * `msg.payload.type === 'delivery.failed'` narrows to it. Other fields of a
 * newer service are kept as-is.
 */
export interface DeliveryFailedPayload {
  type: 'delivery.failed';
  /** The message that was not delivered. */
  message_id: string;
  /** Its conversation. */
  conversation_id: string;
  /** Who did not get it. */
  recipient_id: string;
  /** Why, e.g. `pending_expired`. */
  reason: string;
  [field: string]: unknown;
}

const SYSTEM_SET: ReadonlySet<string> = /* @__PURE__ */ new Set(SYSTEM_SEALED_EVENT_TYPES);

/**
 * Event types only peers (users, agents) seal, never the system sender: a
 * message, a stream's key envelope, a reaction (security issue #24, item 9), a
 * status (#26).
 * The service only relays them. (`artifact_response` is peer-only too except
 * for the service's own denials: see {@link systemPayloadProblem}.)
 */
export const PEER_SEALED_EVENT_TYPES = [
  'message.new',
  'stream.start',
  'reaction.update',
  PRESENCE_FRAMES.statusUpdate,
] as const;

const PEER_SET: ReadonlySet<string> = /* @__PURE__ */ new Set(PEER_SEALED_EVENT_TYPES);

/** True for an event type that the system sender never seals. */
export function isPeerSealedEventType(value: unknown): boolean {
  return typeof value === 'string' && PEER_SET.has(value);
}

/** True for an event type that only the system sender may seal. */
export function isSystemSealedEventType(value: unknown): value is SystemSealedEventType {
  return typeof value === 'string' && SYSTEM_SET.has(value);
}

const SERVICE_DENIALS: ReadonlySet<string> = /* @__PURE__ */ new Set(SERVICE_DENIED_REASONS);

/**
 * Why a payload signed by the system sender is not one the service may
 * originate, or `undefined` when it may. Today one rule: an
 * `artifact_response` from the system sender must be a denial with one of
 * the service's own reasons (`SERVICE_DENIED_REASONS`: `user_timeout`,
 * `tool_not_supported_in_group`, `permission_revoked`, `tool_timeout`); an
 * approval, or a denial in a human's name (`user_rejected`,
 * `tool_not_implemented`), is only ever sealed by the human's client.
 */
export function systemPayloadProblem(
  eventType: string | undefined,
  payload: Readonly<Record<string, unknown>>,
): string | undefined {
  if (eventType !== 'artifact_response') return undefined;
  const reason = payload['reason'];
  if (payload['status'] === 'denied' && typeof reason === 'string' && SERVICE_DENIALS.has(reason))
    return undefined;
  return 'the system sender may only deny an artifact with a service reason, never answer it for a human';
}

/** The signed facts of an opened envelope the rule reads. */
export interface SealedOrigin {
  /** The signed sender id. */
  readonly senderId: string;
  /** The signed event type (v1.1); undefined for a legacy v1.0 envelope. */
  readonly eventType: string | undefined;
}

/**
 * Why a sealed delivery's type does not fit its envelope, or `undefined` when
 * it fits. `deliveryType` is the delivery's (unsigned) `type`; pass
 * `undefined` when the delivery names none (an inbox read): then the signed
 * type alone is checked against the sender.
 */
export function sealedTypeProblem(
  deliveryType: string | undefined,
  origin: SealedOrigin,
): string | undefined {
  const signed = origin.eventType;
  if (signed !== undefined && deliveryType !== undefined && signed !== deliveryType) {
    return `the envelope is signed as ${signed}, delivered as ${deliveryType}`;
  }
  const type = signed ?? deliveryType;
  if (type === undefined) return undefined;
  const bySystem = origin.senderId === SYSTEM_SENDER_ID;
  if (isSystemSealedEventType(type) && !bySystem)
    return `a ${type} event must be signed by the system sender`;
  if (bySystem && isPeerSealedEventType(type)) {
    return `the system sender does not sign ${type} events`;
  }
  return undefined;
}
