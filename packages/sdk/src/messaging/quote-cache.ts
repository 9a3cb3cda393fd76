/**
 * The texts and senders of recent messages per conversation (#26), so a
 * received reply shows the message it quotes, and an edit or delete is
 * accepted only from the sender of the message it changes: fed by the
 * messages a client receives and sends, bounded (the oldest entry goes
 * first), in memory only.
 *
 * @module
 */
import { replyToOf, type ReplyReference } from '../core/protocol/replies.js';
import { readMessageAction } from '../core/protocol/message-actions.js';

/** Entries kept, across conversations. */
export const QUOTE_CACHE_MAX = 2_000;

/**
 * How an edit or delete relates to what this client saw:
 * - `verified`: its signed sender sent the target message here;
 * - `unverified`: this client never saw the target (sent before it joined,
 *   or forgotten): the sender is verified, its authorship of the target is not;
 * - `refused`: the target was sent here by someone else.
 */
export type ActionJudgement = 'verified' | 'unverified' | 'refused';

interface Entry {
  readonly senderId: string;
  /** Text of a text message, undefined otherwise (or once deleted). */
  text: string | undefined;
}

/** Recent messages, by conversation and message id. */
export class QuoteCache {
  readonly #entries = new Map<string, Entry>();
  readonly #max: number;

  constructor(max = QUOTE_CACHE_MAX) {
    this.#max = max;
  }

  /**
   * Remembers a message's sender, and its text for a text payload (actions
   * are not remembered). The first sender of an id keeps it: another member
   * reusing the id cannot change what a reply quotes or who may edit it.
   */
  remember(
    conversationId: string,
    messageId: string,
    senderId: string,
    payload: Readonly<Record<string, unknown>>,
  ): void {
    if (this.#max === 0 || readMessageAction(payload) !== undefined) return;
    const key = JSON.stringify([conversationId, messageId]);
    const known = this.#entries.get(key);
    if (known !== undefined && known.senderId !== senderId) return;
    const text =
      payload['type'] === 'text' && typeof payload['text'] === 'string' ? payload['text'] : undefined;
    this.#entries.delete(key);
    this.#entries.set(key, { senderId, text });
    if (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value!);
  }

  /** What a received payload replies to, with the quoted text when known; undefined when it replies to nothing. */
  replyOf(conversationId: string, payload: Readonly<Record<string, unknown>>): ReplyReference | undefined {
    const messageId = replyToOf(payload);
    if (messageId === undefined) return undefined;
    const known = this.#entries.get(JSON.stringify([conversationId, messageId]));
    return known?.text === undefined
      ? { messageId }
      : { messageId, text: known.text, senderId: known.senderId };
  }

  /** Whether `senderId` may edit or delete `targetId` in `conversationId`. */
  judge(conversationId: string, targetId: string, senderId: string): ActionJudgement {
    const known = this.#entries.get(JSON.stringify([conversationId, targetId]));
    if (known === undefined) return 'unverified';
    return known.senderId === senderId ? 'verified' : 'refused';
  }

  /** Applies an accepted edit (the new text, when a text) or delete (the text is forgotten, the sender kept). */
  apply(
    conversationId: string,
    targetId: string,
    edited: Readonly<Record<string, unknown>> | undefined,
  ): void {
    const known = this.#entries.get(JSON.stringify([conversationId, targetId]));
    if (known === undefined) return;
    known.text =
      edited !== undefined && edited['type'] === 'text' && typeof edited['text'] === 'string'
        ? edited['text']
        : undefined;
  }
}
