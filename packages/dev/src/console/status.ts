/**
 * Status in the console (#26): the agent's sealed `status.update` frames
 * (relayed over the user WebSocket, never stored), opened in the page, shown
 * in one line under the conversation ("Bot is working…", "Bot: searching the
 * web…") until its time to live runs out, an `idle` status clears it, or a
 * message of the same sender arrives (the reply). A status not sealed as
 * `status.update`, or signed before the sender's last message, is not shown.
 *
 * The line is `#agent-status`, created on first use after `#messages`, with
 * `data-state` `working` or `idle` for the tests and for CSS.
 *
 * @module
 */
import { PRESENCE_FRAMES, STATUS_LIMITS, StatusPayloadSchema } from 'agent-messaging-sdk/protocol';

/** What the console needs of an opened envelope. */
export interface OpenedStatus {
  readonly senderId: string;
  readonly conversationId: string;
  readonly createdAt: string;
  readonly eventType?: string | undefined;
  readonly payload: Readonly<Record<string, unknown>>;
}

function line(): HTMLElement {
  const found = document.getElementById('agent-status');
  if (found !== null) return found;
  const p = document.createElement('p');
  p.id = 'agent-status';
  p.setAttribute('aria-live', 'polite');
  p.dataset['state'] = 'idle';
  p.hidden = true;
  p.style.cssText = 'margin:2px 0;font-size:12px;opacity:.75;font-style:italic';
  document.getElementById('messages')?.after(p);
  return p;
}

/** The status line of the open conversation. */
export class ConsoleStatus {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #shownBy: string | undefined;
  /** Signed time of the last message or status per sender (stale statuses are not shown). */
  readonly #latest = new Map<string, number>();

  /** A `status.update` opened in the page: shown when it fits and is not stale. */
  received(m: OpenedStatus, name: (id: string) => string): void {
    if (m.eventType !== PRESENCE_FRAMES.statusUpdate) return;
    const parsed = StatusPayloadSchema.safeParse(m.payload);
    if (!parsed.success) return;
    const at = Date.parse(m.createdAt);
    if (at < (this.#latest.get(m.senderId) ?? -Infinity)) return;
    this.#latest.set(m.senderId, at);
    if (parsed.data.state === 'idle') return this.#hide(m.senderId);
    const el = line();
    const who = name(m.senderId);
    el.textContent = parsed.data.text === undefined ? `${who} is working…` : `${who}: ${parsed.data.text}`;
    el.dataset['state'] = 'working';
    el.hidden = false;
    this.#shownBy = m.senderId;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    const ttl = Math.min(parsed.data.ttl_ms ?? STATUS_LIMITS.defaultTtlMs, STATUS_LIMITS.maxTtlMs);
    this.#timer = setTimeout(() => this.#hide(m.senderId), ttl);
  }

  /** A message of `senderId` signed at `createdAt` was shown: its status ends. */
  replied(senderId: string, createdAt: string): void {
    const at = Date.parse(createdAt);
    if (at >= (this.#latest.get(senderId) ?? -Infinity)) this.#latest.set(senderId, at);
    this.#hide(senderId);
  }

  /** Another conversation was opened: nothing is shown. */
  reset(): void {
    this.#latest.clear();
    this.#hide(this.#shownBy);
  }

  #hide(senderId: string | undefined): void {
    if (senderId === undefined || senderId !== this.#shownBy) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#shownBy = undefined;
    const el = line();
    el.dataset['state'] = 'idle';
    el.textContent = '';
    el.hidden = true;
  }
}
