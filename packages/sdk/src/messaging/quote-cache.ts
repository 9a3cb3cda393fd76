/**
 * The texts of recent messages per conversation (#26), so a received reply
 * shows the message it quotes: fed by the messages a client receives and
 * sends, bounded (the oldest entry goes first), in memory only.
 *
 * @module
 */
import { replyToOf, type ReplyReference } from '../core/protocol/replies.js';

/** Entries kept, across conversations. */
export const QUOTE_CACHE_MAX = 2_000;

/** Recent text messages, by conversation and message id. */
export class QuoteCache {
  readonly #texts = new Map<string, { readonly text: string; readonly senderId: string }>();
  readonly #max: number;

  constructor(max = QUOTE_CACHE_MAX) {
    this.#max = max;
  }

  /**
   * Remembers a message's text (text payloads only). The first sender of an
   * id keeps it: another member reusing the id cannot change what a reply quotes.
   */
  remember(
    conversationId: string,
    messageId: string,
    senderId: string,
    payload: Readonly<Record<string, unknown>>,
  ): void {
    if (payload['type'] !== 'text' || typeof payload['text'] !== 'string') return;
    const key = JSON.stringify([conversationId, messageId]);
    const known = this.#texts.get(key);
    if (known !== undefined && known.senderId !== senderId) return;
    this.#texts.delete(key);
    this.#texts.set(key, { text: payload['text'], senderId });
    if (this.#texts.size > this.#max) this.#texts.delete(this.#texts.keys().next().value!);
  }

  /** What a received payload replies to, with the quoted text when known; undefined when it replies to nothing. */
  replyOf(conversationId: string, payload: Readonly<Record<string, unknown>>): ReplyReference | undefined {
    const messageId = replyToOf(payload);
    if (messageId === undefined) return undefined;
    const known = this.#texts.get(JSON.stringify([conversationId, messageId]));
    return known === undefined ? { messageId } : { messageId, text: known.text, senderId: known.senderId };
  }
}
