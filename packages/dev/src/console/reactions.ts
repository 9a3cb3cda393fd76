/**
 * Reactions in the console: a react button on each message of the other
 * side (sealed `reaction.update` in the page, `POST /conversations/:id/reactions`),
 * and the reactions received over the user WebSocket (`reaction.update`
 * frames, never stored) shown on the message they target. Both live in
 * attributes drawn by CSS, so a bubble's text stays the message's text.
 *
 * @module
 */
import { ReactionPayloadSchema } from 'agent-messaging-sdk/protocol';

/** The emoji the page's react button sends. */
export const REACT_EMOJI = '👍';

/** Adds or removes `emoji` by `who` on the bubble of `messageId` (if shown). */
export function showReaction(messageId: string, who: string, emoji: string, action: 'add' | 'remove'): void {
  const li = document.querySelector<HTMLElement>(`#messages [data-message-id="${CSS.escape(messageId)}"]`);
  if (li === null) return;
  const all = new Map<string, string>(JSON.parse(li.dataset['reactionsBy'] ?? '[]') as [string, string][]);
  if (action === 'add') all.set(`${who} ${emoji}`, emoji);
  else all.delete(`${who} ${emoji}`);
  li.dataset['reactionsBy'] = JSON.stringify([...all]);
  li.dataset['reactions'] = [...all.values()].join(' ');
}

/** The reaction a payload carries, or undefined. */
export function reactionOf(payload: Readonly<Record<string, unknown>>) {
  const parsed = ReactionPayloadSchema.safeParse(payload);
  return parsed.success ? parsed.data : undefined;
}

/** Gives a bubble of the other side its react button. */
export function addReactButton(li: HTMLElement, react: (messageId: string) => Promise<void>): void {
  const id = li.dataset['messageId'];
  if (id === undefined) return;
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'react';
  b.setAttribute('aria-label', `react ${REACT_EMOJI}`);
  b.addEventListener('click', () => void react(id));
  li.append(b);
}
