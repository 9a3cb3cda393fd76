/**
 * The body the service POSTs to an agent's webhook address.
 *
 * Exactly one of `wire_envelope` (base64) and `ref` carries the ciphertext:
 * either `wire_envelope` is a base64 string and `ref` is absent, or
 * `wire_envelope` is `null` and `ref` is present. `version` is `v1`;
 * `metadata.created_at` is `YYYY-MM-DDTHH:mm:ss.sssZ`. Fields the interface
 * does not name are kept as-is (loose objects), and `type` may be an event
 * type this SDK does not know yet.
 *
 * @module
 */
import * as z from '../lazy-zod.js';
import { LIMITS } from '../limits.js';
import { refineEventPayload, type AnyEventType } from './events.js';
import { ObjectRefSchema } from './object-ref.js';
import { parseWith, readProp } from './parse.js';
import { base64Schema, IdentifierSchema, IsoUtcMillisSchema } from './primitives.js';

/** The only delivery body version of V1. */
export const WEBHOOK_BODY_VERSION = 'v1';

/** `metadata` of a delivery. */
export const DeliveryMetadataSchema = z.looseObject({
  conversation_id: IdentifierSchema,
  sender_id: IdentifierSchema,
  /** ISO 8601 UTC with milliseconds, `YYYY-MM-DDTHH:mm:ss.sssZ`. */
  created_at: IsoUtcMillisSchema,
});
/** Metadata of a delivery (wire field names). */
export type DeliveryMetadata = z.output<typeof DeliveryMetadataSchema>;

/** The event type of a body: any non-empty string; known ones are typed. */
export const EventTypeFieldSchema = z
  .string()
  .min(1)
  .max(100)
  .transform((t) => t as AnyEventType);

const common = {
  type: EventTypeFieldSchema,
  version: z.literal(WEBHOOK_BODY_VERSION),
  metadata: DeliveryMetadataSchema,
  /**
   * Cleartext event payload. Not named by the service (gap decision): tolerated
   * and, for event types with documented payload facts, checked.
   */
  payload: z.record(z.string(), z.unknown()).optional(),
};

/** Envelope fields of a delivery whose ciphertext is inline. */
export const inlineEnvelopeShape = {
  wire_envelope: base64Schema({ minBytes: 1, maxChars: LIMITS.WEBHOOK_BODY_MAX_BYTES }),
  ref: z.undefined({ error: 'Must be absent when wire_envelope is set' }).optional(),
};

/** Envelope fields of a delivery whose ciphertext is fetched through `ref`. */
export const referencedEnvelopeShape = {
  wire_envelope: z.null(),
  ref: ObjectRefSchema,
};

/**
 * Checks a cleartext `payload`: never on `message.new` (message content is
 * end-to-end encrypted and travels only inside the envelope), and against the
 * documented payload facts of its event type otherwise.
 */
export function refineCleartextPayload(v: { type: string; payload?: unknown }, ctx: z.RefinementCtx): void {
  if (v.type === 'message.new' && v.payload !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['payload'],
      message: 'message.new carries its payload only inside the encrypted envelope',
    });
    return;
  }
  refineEventPayload(v.type, v.payload, ctx);
}

const checkPayload = refineCleartextPayload;

/** A delivery whose ciphertext is inline in `wire_envelope`. */
export const InlineDeliveryBodySchema = z
  .looseObject({ ...common, ...inlineEnvelopeShape })
  .superRefine(checkPayload);
/** A delivery with an inline envelope. */
export type InlineDeliveryBody = z.output<typeof InlineDeliveryBodySchema>;

/** An oversize delivery: `wire_envelope` is null and `ref` names the stored ciphertext. */
export const ReferencedDeliveryBodySchema = z
  .looseObject({ ...common, ...referencedEnvelopeShape })
  .superRefine(checkPayload);
/** A delivery whose ciphertext is fetched through `ref`. */
export type ReferencedDeliveryBody = z.output<typeof ReferencedDeliveryBodySchema>;

/** A webhook delivery body, either form. Prefer {@link parseWebhookDeliveryBody} for precise issues. */
export const WebhookDeliveryBodySchema = z.union([InlineDeliveryBodySchema, ReferencedDeliveryBodySchema]);
/** A webhook delivery body (wire field names). */
export type WebhookDeliveryBody = z.output<typeof WebhookDeliveryBodySchema>;

/** True when the delivery's ciphertext must be fetched through `ref`. */
export function isReferencedDelivery(body: WebhookDeliveryBody): body is ReferencedDeliveryBody {
  return body.wire_envelope === null;
}

/**
 * Validates a parsed webhook delivery body. A body whose `wire_envelope` is
 * `null` is checked as the referenced form (so a missing `ref` is reported at
 * `ref`); any other body as the inline form.
 *
 * @param json - the body after `JSON.parse` (use `parseJson` for raw text or bytes).
 * @throws {@link ValidationError} with the issues (paths and reasons, never values).
 * @example
 * ```ts
 * const body = parseWebhookDeliveryBody(parseJson(rawBody, 'webhook delivery body'));
 * if (isReferencedDelivery(body)) await fetchObject(body.ref.object_key);
 * ```
 */
export function parseWebhookDeliveryBody(json: unknown): WebhookDeliveryBody {
  const referenced = readProp(json, 'wire_envelope') === null;
  return referenced
    ? parseWith(ReferencedDeliveryBodySchema, json, 'webhook delivery body')
    : parseWith(InlineDeliveryBodySchema, json, 'webhook delivery body');
}
