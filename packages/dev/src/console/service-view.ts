/**
 * The service side of the selected agent, drawn from the control API: its
 * status fields, the deliveries still pending (queued, retrying, awaiting an
 * ack) above the delivery log, and per delivery Replay and its attempts
 * (webhook: time, status code, latency, next attempt on the retry schedule;
 * WebSocket: time, connection, acked / requeued / ack timeout) when opened.
 *
 * @module
 */
import { button } from './dom.js';
import { deliveryTone } from './status-marks.js';

/** A delivery log entry (`GET /agents/:agent_id/delivery-logs`, wire names). */
export interface LogEntry {
  readonly delivery_id: string;
  readonly event_type: string;
  readonly final_status: string;
  readonly attempt_count: number;
  readonly latency_ms?: number;
  readonly error_class?: string;
  readonly completed_at: string;
}

/** A delivery not yet delivered or failed (`GET /_control/agents/:id/deliveries/pending`). */
export interface PendingEntry {
  readonly delivery_id: string;
  readonly event_type: string;
  readonly state: string;
  readonly attempt_count: number;
  readonly created_at: string;
}

/** One attempt (`GET /_control/agents/:id/deliveries/:delivery_id/attempts`). */
export interface AttemptEntry {
  readonly attempt: number;
  readonly started_at: string;
  readonly status_code: number | null;
  readonly outcome: string;
  readonly error_class: string | null;
  readonly latency_ms: number;
  readonly next_attempt_at: string | null;
  /** `webhook` or `websocket` (older servers: absent, a webhook attempt). */
  readonly channel?: string;
  /** The WebSocket connection a frame was sent on. */
  readonly connection?: number | null;
}

/** What the log's buttons do. */
export interface LogActions {
  replay(deliveryId: string): void;
  toggleAttempts(deliveryId: string): void;
  /** Opens the delivery in the inspector (a click on its row or its event). */
  inspect(deliveryId: string): void;
}

/** The event cell: a button that opens the inspector (the row's text stays the event type). */
function eventCell(
  tr: HTMLTableRowElement,
  eventType: string,
  deliveryId: string,
  actions: LogActions,
): void {
  const td = document.createElement('td');
  const open = button(eventType, 'inspect', () => actions.inspect(deliveryId));
  open.title = 'Inspect: headers, sealed envelope, attempts';
  td.append(open);
  tr.append(td);
  tr.addEventListener('click', (e) => {
    if (!(e.target instanceof HTMLButtonElement)) actions.inspect(deliveryId);
  });
}

const time = (iso: string): string => iso.slice(11, 19);

function cell(tr: HTMLTableRowElement, text: string): HTMLTableCellElement {
  const td = document.createElement('td');
  td.textContent = text;
  tr.append(td);
  return td;
}

/** Fills the status list (`<dl>`), one `dd[data-field]` per field. */
export function renderStatus(
  dl: HTMLElement,
  view: Readonly<Record<string, string | number | boolean>>,
): void {
  dl.replaceChildren();
  for (const [k, v] of Object.entries(view)) {
    const dt = document.createElement('dt');
    dt.textContent = k;
    const dd = document.createElement('dd');
    dd.textContent = String(v);
    dd.dataset['field'] = k;
    dl.append(dt, dd);
  }
}

/** One line per attempt. */
export function attemptLine(a: AttemptEntry): string {
  if (a.channel === 'websocket') {
    const on = `#${a.attempt} ${time(a.started_at)} WebSocket conn ${a.connection ?? '?'}`;
    switch (a.outcome) {
      case 'acked':
        return `${on} acked after ${a.latency_ms} ms`;
      case 'requeued':
        return `${on} requeued (connection closed after ${a.latency_ms} ms)`;
      case 'ack_timeout':
        return `${on} ack timeout after ${a.latency_ms} ms`;
      case 'awaiting_ack':
        return `${on} awaiting ack`;
      default:
        return `${on} sent (no acks on this session)`;
    }
  }
  const answer = a.status_code === null ? (a.error_class ?? 'no answer') : `HTTP ${a.status_code}`;
  const next = a.next_attempt_at === null ? '' : `, next ${time(a.next_attempt_at)}`;
  return `#${a.attempt} ${time(a.started_at)} ${answer} ${a.outcome} ${a.latency_ms} ms${next}`;
}

/** Fills the log's body; `attempts` holds the opened deliveries' attempts. */
export function renderLog(
  body: HTMLElement,
  logs: readonly LogEntry[],
  attempts: ReadonlyMap<string, readonly AttemptEntry[]>,
  actions: LogActions,
  pending: readonly PendingEntry[] = [],
): void {
  body.replaceChildren();
  const logged = new Set(logs.map((e) => e.delivery_id));
  for (const p of pending) {
    if (logged.has(p.delivery_id)) continue;
    const tr = document.createElement('tr');
    tr.dataset['deliveryId'] = p.delivery_id;
    tr.dataset['pending'] = 'true';
    eventCell(tr, p.event_type, p.delivery_id, actions);
    for (const text of [p.state, String(p.attempt_count), '', '…']) cell(tr, text);
    cell(tr, '').append(button('attempts', 'show-attempts', () => actions.toggleAttempts(p.delivery_id)));
    body.append(tr);
    attemptRows(body, p.delivery_id, attempts.get(p.delivery_id));
  }
  // A replay logs the same delivery id again: its rows are marked, and the attempts column counts
  // every attempt of that id (it showed `1` beside a list of two, issue #28).
  const times = new Map<string, number>();
  const total = new Map<string, number>();
  for (const e of logs) {
    times.set(e.delivery_id, (times.get(e.delivery_id) ?? 0) + 1);
    total.set(e.delivery_id, (total.get(e.delivery_id) ?? 0) + e.attempt_count);
  }
  const drawn = new Set<string>();
  for (const e of logs) {
    const tr = document.createElement('tr');
    tr.dataset['deliveryId'] = e.delivery_id;
    const count = times.get(e.delivery_id) ?? 1;
    const listed = attempts.get(e.delivery_id)?.length;
    const attemptCount = Math.max(total.get(e.delivery_id) ?? e.attempt_count, listed ?? 0);
    const detail = [e.latency_ms === undefined ? '' : `${e.latency_ms} ms`, e.error_class ?? ''];
    eventCell(tr, e.event_type, e.delivery_id, actions);
    const status = cell(tr, e.final_status);
    status.dataset['tone'] = deliveryTone(e.final_status);
    if (count > 1) {
      tr.dataset['duplicate'] = 'true';
      const mark = document.createElement('span');
      mark.className = 'duplicate';
      mark.textContent = `same id ×${count}`;
      mark.title = 'Replayed with the same delivery id: the bot should skip it as a duplicate.';
      status.append(' ', mark);
    }
    for (const text of [
      String(attemptCount),
      detail.filter((d) => d !== '').join(' '),
      time(e.completed_at),
    ]) {
      cell(tr, text);
    }
    cell(tr, '').append(
      button('attempts', 'show-attempts', () => actions.toggleAttempts(e.delivery_id)),
      button('replay', 'replay', () => actions.replay(e.delivery_id)),
    );
    body.append(tr);
    if (!drawn.has(e.delivery_id)) attemptRows(body, e.delivery_id, attempts.get(e.delivery_id));
    drawn.add(e.delivery_id);
  }
}

/** The opened attempts of a delivery, as a row under it. */
function attemptRows(
  body: HTMLElement,
  deliveryId: string,
  opened: readonly AttemptEntry[] | undefined,
): void {
  if (opened === undefined) return;
  const sub = document.createElement('tr');
  sub.className = 'attempts';
  sub.dataset['attemptsOf'] = deliveryId;
  const td = cell(sub, '');
  td.colSpan = 6;
  const list = document.createElement('ol');
  for (const a of opened) {
    const li = document.createElement('li');
    li.textContent = attemptLine(a);
    li.dataset['outcome'] = a.outcome;
    list.append(li);
  }
  if (opened.length === 0) td.textContent = 'no attempt recorded (older than the last 1 000 deliveries)';
  else td.append(list);
  body.append(sub);
}
