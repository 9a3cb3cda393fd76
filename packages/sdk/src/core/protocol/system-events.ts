/**
 * Which events the service itself originates: the one list of event types the
 * reference server seals with the system sender, and the rule receivers
 * apply to every sealed delivery (Agent and UserClient alike):
 *
 * 1. a v1.1 envelope's signed event type must equal the delivery's `type`
 *    (a relay cannot relabel a payload that happens to fit another type);
 * 2. a type of {@link SYSTEM_SEALED_EVENT_TYPES} must be signed by the system sender;
 * 3. the system sender never signs a type of {@link PEER_SEALED_EVENT_TYPES}
 *    (`message.new`: the service cannot speak in a conversation as `system`).
 *
 * Other types (`artifact_response`, the WebSocket-only service events) are
 * not attributed by the service interface: either sender is accepted, and in
 * v1.1 the signed type must still match.
 *
 * @module
 */

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

const SYSTEM_SET: ReadonlySet<string> = /* @__PURE__ */ new Set(SYSTEM_SEALED_EVENT_TYPES);

/** Event types only peers (users, agents) seal: never the system sender. */
export const PEER_SEALED_EVENT_TYPES = ['message.new'] as const;

/** True for an event type that the system sender never seals. */
export function isPeerSealedEventType(value: unknown): boolean {
  return typeof value === 'string' && (PEER_SEALED_EVENT_TYPES as readonly string[]).includes(value);
}

/** True for an event type that only the system sender may seal. */
export function isSystemSealedEventType(value: unknown): value is SystemSealedEventType {
  return typeof value === 'string' && SYSTEM_SET.has(value);
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
