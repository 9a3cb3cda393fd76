/**
 * The timeline of a conversation's deliveries (issue #28): every recent
 * delivery of the open conversation, to each of its agents, in the order the
 * service queued them (`GET /_control/conversations/:id/deliveries`). Each
 * shows when it was queued, the event, who sent it and to whom, its state,
 * and its attempts in order as marks (a WebSocket frame acked or requeued, a
 * webhook answer, a redelivery, a replay marked as a duplicate). Clicking one
 * opens it in the inspector.
 *
 * @module
 */
import { button } from './dom.js';
import { attemptTone, deliveryState, type DeliveryView, type InspectedAttempt } from './inspector.js';
import { deliveryTone } from './status-marks.js';

/** What the timeline does and shows beside the deliveries. */
export interface TimelineContext {
  readonly name: (id: string) => string;
  readonly inspect: (v: DeliveryView) => void;
  readonly close: () => void;
}

/** A short mark for one attempt: `ws acked 3 ms`, `HTTP 503`, `ws requeued`… */
export function attemptMark(a: InspectedAttempt): string {
  if (a.channel === 'websocket') {
    const latency = a.outcome === 'acked' ? ` ${a.latency_ms} ms` : '';
    return `#${a.attempt} ws ${a.outcome === 'sent' ? 'sent' : a.outcome.replace('_', ' ')}${latency}`;
  }
  const answer = a.status_code === null ? (a.error_class ?? 'no answer') : `HTTP ${a.status_code}`;
  return `#${a.attempt} ${answer} ${a.latency_ms} ms`;
}

/** Draws the timeline of `conversationTitle` into `panel`. */
export function renderTimeline(
  panel: HTMLElement,
  conversationTitle: string,
  deliveries: readonly DeliveryView[],
  ctx: TimelineContext,
): void {
  panel.replaceChildren();
  const title = document.createElement('h3');
  title.textContent = `Timeline: ${conversationTitle} (${deliveries.length})`;
  title.append(' ', button('close', 'close-drawer', ctx.close));
  panel.append(title);
  const list = document.createElement('ol');
  list.className = 'timeline';
  for (const v of deliveries) {
    const li = document.createElement('li');
    li.dataset['deliveryId'] = v.delivery_id;
    const state = deliveryState(v);
    li.dataset['state'] = state;
    const head = button(
      `${v.queued_at.slice(11, 19)} ${v.event_type} ${ctx.name(v.sender_id)} → ${ctx.name(v.agent_id)}`,
      'inspect',
      () => ctx.inspect(v),
    );
    head.title = 'Open in the inspector';
    const status = document.createElement('span');
    status.className = 'state';
    status.textContent = state;
    status.dataset['tone'] = deliveryTone(state);
    const marks = document.createElement('span');
    marks.className = 'marks';
    for (const a of v.attempts) {
      const mark = document.createElement('span');
      mark.className = 'mark';
      mark.textContent = attemptMark(a);
      mark.dataset['outcome'] = a.outcome;
      mark.dataset['tone'] = attemptTone(a.outcome);
      if ((a.run ?? 1) > 1) {
        mark.dataset['duplicate'] = 'true';
        mark.title = 'A replay under the same delivery id: a duplicate the bot should skip.';
      }
      marks.append(mark);
    }
    li.append(head, ' ', status, ' ', marks);
    if (v.replays > 0) {
      const dup = document.createElement('span');
      dup.className = 'duplicate';
      dup.textContent = `same id ×${v.replays + 1}`;
      li.append(' ', dup);
    }
    list.append(li);
  }
  if (deliveries.length === 0) {
    const none = document.createElement('p');
    none.className = 'muted';
    none.textContent = 'No delivery of this conversation yet (the server keeps the last 1 000).';
    panel.append(none);
  }
  panel.append(list);
  panel.hidden = false;
}
