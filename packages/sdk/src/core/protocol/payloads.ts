/**
 * Message payloads: the plaintext JSON inside an encrypted envelope, and the
 * `payload` of `POST /agents/:id/messages`.
 *
 * The service names one payload type, `{ type: 'text', text }`; the SDK adds
 * files, artifacts and their answers, reactions and forwarded copies.
 * {@link MessagePayload} is the discriminated union of them all, so
 * `payload.type === 'file'` narrows to {@link FilePayload}. On the wire every
 * other `type` is still accepted as an open record (kept as-is), so a newer
 * payload kind does not break an older agent; see {@link MessagePayload}.
 *
 * @module
 */
import * as z from '../lazy-zod.js';
import { parseWith, readProp } from './parse.js';
import { IdentifierSchema } from './primitives.js';
import type { SameType } from './same-type.js';
import type {
  ArtifactAnswerPayload,
  ArtifactPayload,
  ForwardedPayload,
  ReactionPayload,
} from './artifacts.js';
import type { FilePayload } from './file-payload.js';

/** A text message. */
export const TextPayloadSchema = z.looseObject({
  type: z.literal('text'),
  /** The text. Length bounds are not shown by the service. */
  text: z.string(),
});
/** A text message payload (`type: 'text'`). */
export interface TextPayload {
  type: 'text';
  /** The text. */
  text: string;
  /** Fields of a newer version, kept as-is. */
  [field: string]: unknown;
}
true satisfies SameType<z.output<typeof TextPayloadSchema>, TextPayload>;

/** Any other payload kind: a non-empty `type` other than `text`, other fields kept as-is. */
export const OtherPayloadSchema = z.looseObject({
  type: z
    .string()
    .min(1)
    .max(100)
    .refine((t) => t !== 'text', { message: 'A text payload needs a string text field' }),
});
/** A payload of a kind other than text, as the wire carries it (an open record). */
export interface OtherPayload {
  type: string;
  [field: string]: unknown;
}
true satisfies SameType<z.output<typeof OtherPayloadSchema>, OtherPayload>;

/** A message payload on the wire: text, or an open record with another `type`. */
export const MessagePayloadSchema = z.union([TextPayloadSchema, OtherPayloadSchema]);

/**
 * A message payload: the discriminated union, on `type`, of every kind this
 * SDK knows. `switch (payload.type)` completes the kinds and each `case`
 * narrows: `'file'` gives a {@link FilePayload} with `object_key: string`,
 * ready for `files.download()`.
 *
 * A kind added by a newer service is still delivered, as it came: it is none
 * of these members, so keep a `default:` branch: TypeScript types the
 * payload `never` there, and `(msg.payload as { type: string }).type` reads
 * its kind. docs/errors.md ("Gap decisions") says why the union carries no
 * open member.
 *
 * @example
 * ```ts
 * switch (msg.payload.type) {
 *   case 'text': return msg.reply(msg.payload.text);
 *   case 'file': return agent.files.download(msg.payload);
 *   default: console.warn(`unhandled payload ${(msg.payload as { type: string }).type}`);
 * }
 * ```
 */
export type MessagePayload =
  TextPayload | FilePayload | ArtifactPayload | ArtifactAnswerPayload | ReactionPayload | ForwardedPayload;

/** Every `type` of {@link MessagePayload}. */
export type MessagePayloadType = MessagePayload['type'];

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
  // A kind this SDK does not know passes as an open record (forward
  // compatibility); MessagePayload's documentation says how handlers see it.
  return (
    readProp(input, 'type') === 'text'
      ? parseWith(TextPayloadSchema, input, 'message payload')
      : parseWith(OtherPayloadSchema, input, 'message payload')
  ) as MessagePayload;
}

/** Body of `POST /agents/:id/messages`. */
export const SendMessageRequestSchema = z.looseObject({
  conversation_id: IdentifierSchema,
  payload: MessagePayloadSchema,
});
/** Body of a send-message request (wire field names). */
export interface SendMessageRequest {
  conversation_id: string;
  payload: TextPayload | OtherPayload;
  [field: string]: unknown;
}
true satisfies SameType<z.output<typeof SendMessageRequestSchema>, SendMessageRequest>;
