/**
 * Message payloads: the plaintext JSON inside an encrypted envelope, and the
 * `payload` of `POST /agents/:id/messages`.
 *
 * The service names one payload type, `{ type: 'text', text }`. Every other
 * `type` is accepted as an open record (kept as-is) so newer payload kinds do
 * not break older agents.
 *
 * @module
 */
import { z } from 'zod';
import { parseWith, readProp } from './parse.js';
import { IdentifierSchema } from './primitives.js';

/** A text message. */
export const TextPayloadSchema = z.looseObject({
  type: z.literal('text'),
  /** The text. Length bounds are not shown by the service. */
  text: z.string(),
});
/** A text message payload. */
export type TextPayload = z.infer<typeof TextPayloadSchema>;

/** Any other payload kind: a non-empty `type` other than `text`, other fields kept as-is. */
export const OtherPayloadSchema = z.looseObject({
  type: z
    .string()
    .min(1)
    .max(100)
    .refine((t) => t !== 'text', { message: 'A text payload needs a string text field' }),
});
/** A payload of a kind other than text. */
export type OtherPayload = z.infer<typeof OtherPayloadSchema>;

/** A message payload: text, or an open record with another `type`. */
export const MessagePayloadSchema = z.union([TextPayloadSchema, OtherPayloadSchema]);
/** A message payload. */
export type MessagePayload = z.infer<typeof MessagePayloadSchema>;

/** True when the payload is a text payload. */
export function isTextPayload(payload: MessagePayload): payload is TextPayload {
  return payload.type === 'text';
}

/**
 * Validates a message payload (e.g. the decrypted plaintext of an envelope).
 * A `text` payload is checked as text, so its issues name `text`.
 *
 * @throws {@link ValidationError} with the issues (paths and reasons, never values).
 */
export function parseMessagePayload(input: unknown): MessagePayload {
  return readProp(input, 'type') === 'text'
    ? parseWith(TextPayloadSchema, input, 'message payload')
    : parseWith(OtherPayloadSchema, input, 'message payload');
}

/** Body of `POST /agents/:id/messages`. */
export const SendMessageRequestSchema = z.looseObject({
  conversation_id: IdentifierSchema,
  payload: MessagePayloadSchema,
});
/** Body of a send-message request (wire field names). */
export type SendMessageRequest = z.infer<typeof SendMessageRequestSchema>;
