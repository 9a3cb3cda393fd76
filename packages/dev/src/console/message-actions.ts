/**
 * Edits, deletes and read receipts in the console (#26). A `message.edit`
 * replaces the text of the bubble it names and marks it `data-edited`, a
 * `message.delete` blanks it (`data-deleted`), both only when the bubble was
 * sent by the action's signed sender (its `data-sender-id`, or the page's
 * own user for `mine`); one from anyone else, or naming a bubble this page
 * does not show, changes nothing. A `receipt` marks the page's own bubbles
 * it lists `data-read` ("read" as the title). The page sends none: it is an
 * inspector of what the agent sends.
 *
 * @module
 */
import { readMessageAction } from 'agent-messaging-sdk/protocol';

function bubble(list: HTMLElement, id: string): HTMLElement | null {
  return list.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(id)}"]`);
}

/** Replaces a bubble's own text (its first text node), keeping what else it shows. */
function setText(li: HTMLElement, text: string): void {
  const first = li.firstChild;
  if (first?.nodeType === Node.TEXT_NODE) first.textContent = text;
  else li.prepend(text);
}

/**
 * Shows `payload` when it is a message action (true: handled, show no bubble
 * for it); false for any other payload.
 */
export function showMessageAction(
  list: HTMLElement,
  senderId: string,
  ownId: string,
  payload: Readonly<Record<string, unknown>>,
): boolean {
  const action = readMessageAction(payload);
  if (action === undefined) return false;
  if (action === 'invalid') return true;
  if (action.type === 'receipt') {
    for (const id of action.message_ids) {
      const li = bubble(list, id);
      if (li === null || !li.classList.contains('mine')) continue;
      li.dataset['read'] = 'true';
      li.title = 'read';
    }
    return true;
  }
  const li = bubble(list, action.target_id);
  if (li === null) return true;
  const author = li.dataset['senderId'] ?? (li.classList.contains('mine') ? ownId : undefined);
  if (author !== senderId) return true;
  if (action.type === 'message.delete') {
    setText(li, 'message deleted');
    li.dataset['deleted'] = 'true';
    return true;
  }
  const p = action.payload;
  setText(li, p['type'] === 'text' && typeof p['text'] === 'string' ? p['text'] : `[${p['type']}]`);
  li.dataset['edited'] = 'true';
  li.title = 'edited';
  return true;
}
