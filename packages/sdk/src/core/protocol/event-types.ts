/**
 * Event type names, without any schema library: imported by the zod protocol
 * model (`events.ts`) and by the dependency-free webhook receiver alike, so
 * the list exists once.
 *
 * - {@link WEBHOOK_EVENT_TYPES}: delivered by webhook (and, we assume, by WebSocket).
 * - {@link WS_ONLY_EVENT_TYPES}: never sent by webhook.
 * - `grant.revoked`: its delivery mode is not shown; the SDK accepts it on both channels.
 *
 * @module
 */

/** Event types delivered by webhook (the value of the body's `type`). */
export const WEBHOOK_EVENT_TYPES = [
  'message.new',
  'relation.established',
  'relation.revoked',
  'relation.suspended',
  'relation.restored',
  'artifact_response',
  'agent.capability_changed',
] as const;
/** An event type delivered by webhook. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Event types sent only over WebSocket. An agent that needs them must use WebSocket mode. */
export const WS_ONLY_EVENT_TYPES = [
  'agent.governance',
  'reaction.update',
  'group.updated',
  'artifact.expired',
  'session.invalidated',
  'auth.expiring',
  'system.group_key_rotated',
] as const;
/** An event type sent only over WebSocket. */
export type WsOnlyEventType = (typeof WS_ONLY_EVENT_TYPES)[number];

/** Event types whose delivery mode the service does not show (accepted on both channels). */
export const UNSPECIFIED_DELIVERY_EVENT_TYPES = ['grant.revoked'] as const;
/** An event type with unspecified delivery mode. */
export type UnspecifiedDeliveryEventType = (typeof UNSPECIFIED_DELIVERY_EVENT_TYPES)[number];

/** Every event type the SDK knows. */
export const EVENT_TYPES = [
  ...WEBHOOK_EVENT_TYPES,
  ...WS_ONLY_EVENT_TYPES,
  ...UNSPECIFIED_DELIVERY_EVENT_TYPES,
] as const;
/** A known event type. */
export type EventType = (typeof EVENT_TYPES)[number];
/** An event type as received: a known one, or an unknown one kept as-is. */
export type AnyEventType = EventType | (string & {});

/** Longest event type accepted in a delivery body or event frame, in characters (our bound). */
export const EVENT_TYPE_MAX_CHARS = 100;

const WEBHOOK_SET: ReadonlySet<string> = /* @__PURE__ */ new Set(WEBHOOK_EVENT_TYPES);
const WS_ONLY_SET: ReadonlySet<string> = /* @__PURE__ */ new Set(WS_ONLY_EVENT_TYPES);
const ALL_SET: ReadonlySet<string> = /* @__PURE__ */ new Set(EVENT_TYPES);

/** True for an event type the service delivers by webhook. */
export function isWebhookEventType(value: unknown): value is WebhookEventType {
  return typeof value === 'string' && WEBHOOK_SET.has(value);
}

/** True for an event type the service sends only over WebSocket. */
export function isWsOnlyEventType(value: unknown): value is WsOnlyEventType {
  return typeof value === 'string' && WS_ONLY_SET.has(value);
}

/** True for any event type the SDK knows. */
export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && ALL_SET.has(value);
}
