/**
 * Event type names and the payload facts the service gives for them.
 *
 * The names themselves live in the zod-free `event-types.ts` (shared with the
 * dependency-free webhook receiver) and are re-exported here unchanged.
 *
 * Payloads are loose objects: only the fields the service names are checked,
 * every other field is kept as-is.
 *
 * @module
 */
import * as z from '../lazy-zod.js';
import { ARTIFACT_DENIED_REASONS } from '../errors/index.js';
import { parseWith } from './parse.js';
import type { AnyEventType } from './event-types.js';
import { IdentifierSchema } from './primitives.js';

export {
  WEBHOOK_EVENT_TYPES,
  WS_ONLY_EVENT_TYPES,
  UNSPECIFIED_DELIVERY_EVENT_TYPES,
  EVENT_TYPES,
  isWebhookEventType,
  isWsOnlyEventType,
  isEventType,
  type WebhookEventType,
  type WsOnlyEventType,
  type UnspecifiedDeliveryEventType,
  type EventType,
  type AnyEventType,
} from './event-types.js';
import type { SameType } from './same-type.js';

/** `relation.revoked`: the user and conversation concerned. */
export const RelationRevokedPayloadSchema = z.looseObject({
  user_id: IdentifierSchema,
  conversation_id: IdentifierSchema,
});
/** Payload of `relation.revoked`. */
export type RelationRevokedPayload = z.output<typeof RelationRevokedPayloadSchema>;

/** `grant.revoked`: the grant, its scope and the user. The type of `scope` is not shown: a string or a list of strings. */
export const GrantRevokedPayloadSchema = z.looseObject({
  grant_id: IdentifierSchema,
  scope: z.union([z.string().min(1), z.array(z.string().min(1))]),
  user_id: IdentifierSchema,
});
/** Payload of `grant.revoked`. */
export type GrantRevokedPayload = z.output<typeof GrantRevokedPayloadSchema>;

/** Schema of the `reason` of a denied artifact response. */
export const ArtifactDeniedReasonSchema = z.enum(ARTIFACT_DENIED_REASONS);

/**
 * `artifact_response`: a user answered an artifact. When `status` is
 * `denied`, `reason` is required and is one of the six denied reasons.
 * Other status values are not shown and are kept as-is.
 */
export const ArtifactResponsePayloadSchema = z
  .looseObject({
    status: z.string().min(1).max(64),
    reason: z.string().optional(),
  })
  .superRefine((v, ctx) => {
    if (v.status !== 'denied') return;
    if (!ArtifactDeniedReasonSchema.safeParse(v.reason).success) {
      ctx.addIssue({
        code: 'custom',
        path: ['reason'],
        message: `A denied artifact response needs reason, one of ${ARTIFACT_DENIED_REASONS.join(', ')}`,
      });
    }
  });
/** Payload of `artifact_response`. */
export interface ArtifactResponsePayload {
  [field: string]: unknown;
  status: string;
  reason?: string | undefined;
}
true satisfies SameType<z.output<typeof ArtifactResponsePayloadSchema>, ArtifactResponsePayload>;

/** Payload of an event about which the service gives no facts: any object, kept as-is. */
export const OpaqueEventPayloadSchema = z.looseObject({});
/** Payload of an event without documented fields. */
export type OpaqueEventPayload = z.output<typeof OpaqueEventPayloadSchema>;

/** The payload schema of each event type that has documented payload facts. */
export const EVENT_PAYLOAD_SCHEMAS = {
  'relation.revoked': RelationRevokedPayloadSchema,
  'grant.revoked': GrantRevokedPayloadSchema,
  artifact_response: ArtifactResponsePayloadSchema,
} as const;

/** The payload type of an event type. */
export type EventPayload<T extends AnyEventType> = T extends keyof typeof EVENT_PAYLOAD_SCHEMAS
  ? z.output<(typeof EVENT_PAYLOAD_SCHEMAS)[T]>
  : OpaqueEventPayload;

/**
 * Validates the payload of an event of type `type`: the documented facts for
 * `relation.revoked`, `grant.revoked` and `artifact_response`, any object
 * otherwise. (`message.new` carries an encrypted envelope; its plaintext is
 * checked with `parseMessagePayload`.)
 *
 * @throws {@link ValidationError} with the issues (paths and reasons, never values).
 */
export function parseEventPayload<T extends AnyEventType>(type: T, input: unknown): EventPayload<T> {
  const known = typeof type === 'string' && Object.hasOwn(EVENT_PAYLOAD_SCHEMAS, type);
  const schema: z.ZodType = known
    ? EVENT_PAYLOAD_SCHEMAS[type as keyof typeof EVENT_PAYLOAD_SCHEMAS]
    : OpaqueEventPayloadSchema;
  const what = known ? `${type} payload` : 'event payload';
  return parseWith(schema, input, what) as EventPayload<T>;
}

/**
 * Checks a cleartext `payload` inside a larger record (a webhook body or an
 * event frame) against the schema of its event type, reporting issues under
 * `payload`. For use in a zod `superRefine`.
 */
export function refineEventPayload(type: string, payload: unknown, ctx: z.RefinementCtx): void {
  if (payload === undefined || !Object.hasOwn(EVENT_PAYLOAD_SCHEMAS, type)) return;
  const result = EVENT_PAYLOAD_SCHEMAS[type as keyof typeof EVENT_PAYLOAD_SCHEMAS].safeParse(payload);
  if (result.success) return;
  for (const issue of result.error.issues) {
    ctx.addIssue({ code: 'custom', message: issue.message, path: ['payload', ...issue.path] });
  }
}
