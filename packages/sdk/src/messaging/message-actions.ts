/**
 * Received message actions (#26), shared by the Agent and the UserClient:
 * an edit or delete is judged against the sender the receiver remembers for
 * the target message (see {@link QuoteCache.judge}); a receipt names the
 * messages its sender read. Turns an opened action into the typed event both
 * sides emit.
 *
 * @module
 */
import type { MessageAction } from '../core/protocol/message-actions.js';
import type { QuoteCache } from './quote-cache.js';

/** Facts of the opened message that carried the action (signed sender, conversation, id). */
export interface ActionCarrier {
  readonly conversationId: string;
  readonly messageId: string;
  readonly senderId: string;
}

/** A message was edited by its sender (`messageEdited`). */
export interface MessageEdited {
  readonly conversationId: string;
  /** The edited message. */
  readonly targetId: string;
  /** The signed sender of the edit. */
  readonly senderId: string;
  /** The new payload (sealed, signed by `senderId`). */
  readonly payload: Readonly<Record<string, unknown>>;
  /** The new text, for a text payload. */
  readonly text: string | undefined;
  /**
   * True when this receiver saw the target message from `senderId`; false
   * when it never saw the target (sent before it joined, or forgotten), so
   * only the edit's own sender is verified. An edit of someone else's
   * message is never emitted.
   */
  readonly verified: boolean;
  /** The id of the edit message itself. */
  readonly messageId: string;
}

/** A message was deleted by its sender (`messageDeleted`). */
export interface MessageDeleted {
  readonly conversationId: string;
  /** The deleted message. */
  readonly targetId: string;
  /** The signed sender of the delete. */
  readonly senderId: string;
  /** As {@link MessageEdited.verified}. */
  readonly verified: boolean;
  /** The id of the delete message itself. */
  readonly messageId: string;
}

/** A member read messages (`messageRead`; only with the `readReceipts` option on). */
export interface MessageRead {
  readonly conversationId: string;
  /** The signed sender of the receipt: who read. */
  readonly readerId: string;
  /** The ids read, as the reader listed them. */
  readonly messageIds: readonly string[];
  /** The id of the receipt message itself. */
  readonly messageId: string;
}

/** What a received action becomes. */
export type ActionOutcome =
  | { readonly kind: 'edited'; readonly event: MessageEdited }
  | { readonly kind: 'deleted'; readonly event: MessageDeleted }
  | { readonly kind: 'read'; readonly event: MessageRead }
  | { readonly kind: 'refused'; readonly why: 'not_the_sender' | 'receipts_off' };

/**
 * Judges and applies one opened action: an accepted edit or delete updates
 * `quotes` (so later replies quote the new text, or none).
 */
export function resolveAction(
  quotes: QuoteCache,
  carrier: ActionCarrier,
  action: MessageAction,
  readReceipts: boolean,
): ActionOutcome {
  const { conversationId, messageId, senderId } = carrier;
  if (action.type === 'receipt') {
    if (!readReceipts) return { kind: 'refused', why: 'receipts_off' };
    return {
      kind: 'read',
      event: { conversationId, readerId: senderId, messageIds: [...action.message_ids], messageId },
    };
  }
  const targetId = action.target_id;
  const judged = quotes.judge(conversationId, targetId, senderId);
  if (judged === 'refused') return { kind: 'refused', why: 'not_the_sender' };
  const verified = judged === 'verified';
  if (action.type === 'message.delete') {
    quotes.apply(conversationId, targetId, undefined);
    return { kind: 'deleted', event: { conversationId, targetId, senderId, verified, messageId } };
  }
  const payload = action.payload;
  quotes.apply(conversationId, targetId, payload);
  const text =
    payload['type'] === 'text' && typeof payload['text'] === 'string' ? payload['text'] : undefined;
  return {
    kind: 'edited',
    event: { conversationId, targetId, senderId, payload, text, verified, messageId },
  };
}
