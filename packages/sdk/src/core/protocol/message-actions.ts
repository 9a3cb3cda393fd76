/**
 * Message actions (issue #26): edit and delete of one's own message, and
 * read receipts. All three travel as message payloads inside the end-to-end
 * envelope, so they are sealed to the members and signed by the sender: the
 * service can neither read nor forge them, and a replayed copy is a
 * duplicate message id.
 *
 * - `message.edit`: `{ type, target_id, payload }`, `payload` the new
 *   payload of the target (e.g. `{ type: 'text', text }`).
 * - `message.delete`: `{ type, target_id }`.
 * - `receipt`: `{ type, message_ids }`, the ids read (1 to
 *   {@link RECEIPT_MAX_IDS}).
 *
 * Receivers accept an edit or delete only from the signed sender of the
 * target message (docs/agent.md, gap decision 33).
 *
 * @module
 */
import * as z from '../lazy-zod.js';
import { ValidationError } from '../errors/validation-error.js';
import { IdentifierSchema } from './primitives.js';

/** The payload `type` of an edit. */
export const MESSAGE_EDIT_TYPE = 'message.edit';
/** The payload `type` of a delete. */
export const MESSAGE_DELETE_TYPE = 'message.delete';
/** The payload `type` of a read receipt. */
export const RECEIPT_TYPE = 'receipt';
/** Most message ids one receipt lists. */
export const RECEIPT_MAX_IDS = 100;

const ACTION_TYPES: ReadonlySet<string> = new Set([MESSAGE_EDIT_TYPE, MESSAGE_DELETE_TYPE, RECEIPT_TYPE]);

/** The new payload of an edit: any payload kind but another action. */
const EditedPayloadSchema = z.looseObject({
  type: z
    .string()
    .min(1)
    .max(100)
    .refine((t) => !ACTION_TYPES.has(t), 'an edit cannot carry an action'),
});

/** An edit of the sender's own message. */
export const MessageEditPayloadSchema = z.looseObject({
  type: z.literal(MESSAGE_EDIT_TYPE),
  target_id: IdentifierSchema,
  payload: EditedPayloadSchema,
});
/** An edit payload. */
export type MessageEditPayload = z.output<typeof MessageEditPayloadSchema>;

/** A delete of the sender's own message. */
export const MessageDeletePayloadSchema = z.looseObject({
  type: z.literal(MESSAGE_DELETE_TYPE),
  target_id: IdentifierSchema,
});
/** A delete payload. */
export type MessageDeletePayload = z.output<typeof MessageDeletePayloadSchema>;

/** A read receipt. */
export const ReceiptPayloadSchema = z.looseObject({
  type: z.literal(RECEIPT_TYPE),
  message_ids: z.array(IdentifierSchema).min(1).max(RECEIPT_MAX_IDS),
});
/** A receipt payload. */
export type ReceiptPayload = z.output<typeof ReceiptPayloadSchema>;

/** Any message action. */
export type MessageAction = MessageEditPayload | MessageDeletePayload | ReceiptPayload;

/**
 * The action in `payload`: the parsed action; `'invalid'` when its `type`
 * names an action but the rest does not parse; undefined when it is no action.
 */
export function readMessageAction(payload: unknown): MessageAction | 'invalid' | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const type = (payload as Record<string, unknown>)['type'];
  if (typeof type !== 'string' || !ACTION_TYPES.has(type)) return undefined;
  const schema =
    type === MESSAGE_EDIT_TYPE
      ? MessageEditPayloadSchema
      : type === MESSAGE_DELETE_TYPE
        ? MessageDeletePayloadSchema
        : ReceiptPayloadSchema;
  const r = schema.safeParse(payload);
  return r.success ? (r.data as MessageAction) : 'invalid';
}

function checked<T>(schema: z.ZodType<T>, value: unknown, option: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw new ValidationError({
    message: `Not a valid ${option}.`,
    issues: r.error.issues.map((i) => ({ path: [option, ...i.path.map(String)], message: i.message })),
  });
}

/**
 * The `message.edit` payload replacing `targetId`'s payload with `payload`.
 *
 * @throws {@link ValidationError} when `targetId` is not an id or `payload` is an action.
 */
export function editPayload(
  targetId: string,
  payload: Readonly<Record<string, unknown>>,
): MessageEditPayload {
  return checked(MessageEditPayloadSchema, { type: MESSAGE_EDIT_TYPE, target_id: targetId, payload }, 'edit');
}

/**
 * The `message.delete` payload of `targetId`.
 *
 * @throws {@link ValidationError} when `targetId` is not an id.
 */
export function deletePayload(targetId: string): MessageDeletePayload {
  return checked(MessageDeletePayloadSchema, { type: MESSAGE_DELETE_TYPE, target_id: targetId }, 'delete');
}

/**
 * The `receipt` payload listing `messageIds`.
 *
 * @throws {@link ValidationError} for no ids, more than {@link RECEIPT_MAX_IDS}, or a bad id.
 */
export function receiptPayload(messageIds: readonly string[]): ReceiptPayload {
  return checked(ReceiptPayloadSchema, { type: RECEIPT_TYPE, message_ids: [...messageIds] }, 'receipt');
}
