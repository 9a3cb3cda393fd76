/**
 * Replies in the console (#26): a received message whose sealed payload
 * names the message it answers (`reply_to`) gets `data-reply-to` (that id)
 * and, when the answered message is shown in this page, `data-quote` (its
 * text, read from the page's own bubble, never from the sender) and a
 * `title` `↩ quote`, so a bubble's text stays the message's text.
 *
 * @module
 */
import { replyToOf } from 'agent-messaging-sdk/protocol';

/** Marks `li` as a reply when `payload` answers another message. */
export function showReplyTo(li: HTMLElement, payload: Readonly<Record<string, unknown>>): void {
  const id = replyToOf(payload);
  if (id === undefined) return;
  li.dataset['replyTo'] = id;
  const quoted = document.querySelector<HTMLElement>(`#messages [data-message-id="${CSS.escape(id)}"]`);
  const text = quoted?.firstChild?.nodeType === Node.TEXT_NODE ? quoted.firstChild.textContent : null;
  if (text === null || text === undefined) return;
  li.dataset['quote'] = text;
  li.title = `↩ ${text}`;
}
