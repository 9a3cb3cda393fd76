/**
 * Replies (#26): a message answers another by carrying the other's message id
 * in its sealed payload, field `reply_to` (any payload kind; the service
 * never sees it). Receivers resolve the quoted text themselves, from the
 * messages they saw (never from the sender's word).
 *
 * @module
 */
import { ValidationError } from '../errors/validation-error.js';
import { IdentifierSchema } from './primitives.js';

/** The payload field that names the message a message replies to. */
export const REPLY_TO_FIELD = 'reply_to';

/** The message a received message replies to. */
export interface ReplyReference {
  /** The quoted message's id (from the sealed payload). */
  readonly messageId: string;
  /**
   * The quoted message's text, when this client saw that text message in
   * the same conversation (received or sent); undefined otherwise.
   */
  readonly text?: string;
  /** Who sent the quoted message (verified when it was opened here); with `text`. */
  readonly senderId?: string;
}

/** The message id a payload replies to, or undefined (absent or not an identifier). */
export function replyToOf(payload: Readonly<Record<string, unknown>>): string | undefined {
  const value = payload[REPLY_TO_FIELD];
  return IdentifierSchema.safeParse(value).success ? (value as string) : undefined;
}

/**
 * `payload` with `reply_to: messageId`.
 *
 * @throws {@link ValidationError} when `messageId` is not an identifier.
 */
export function withReplyTo<P extends Readonly<Record<string, unknown>>>(
  payload: P,
  messageId: string,
): P & { reply_to: string } {
  if (!IdentifierSchema.safeParse(messageId).success) {
    throw new ValidationError({
      message: 'replyTo must be a message id.',
      issues: [{ path: ['replyTo'], message: 'not an identifier' }],
    });
  }
  return { ...payload, [REPLY_TO_FIELD]: messageId } as P & { reply_to: string };
}
