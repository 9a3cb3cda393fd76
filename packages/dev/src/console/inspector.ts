/**
 * The event inspector (issue #28): one delivery as the service handled it,
 * in a side panel opened from the delivery log or the timeline. Its body
 * fields and, for a webhook, the HTTP headers each attempt was sent with; the
 * sealed envelope as the service relayed it (its clear header parsed, the
 * ciphertext folded); the decrypted payload when the dev user sent it (the
 * page holds only the user's keys: an agent's or the system's envelope stays
 * sealed here); every attempt with its timing and outcome, a replay's attempts
 * marked as duplicates; every final status of the id.
 *
 * @module
 */
import { fromBase64, parseEnvelope } from 'agent-messaging-sdk/protocol';
import { button } from './dom.js';
import { attemptLine, type AttemptEntry, type LogEntry } from './service-view.js';
import { deliveryTone } from './status-marks.js';

/** One delivery (`GET /_control/agents/:id/deliveries/:delivery_id`, wire names). */
export interface DeliveryView {
  readonly delivery_id: string;
  readonly agent_id: string;
  readonly event_type: string;
  readonly conversation_id: string;
  readonly sender_id: string;
  readonly created_at: string;
  readonly queued_at: string;
  readonly message_id: string | null;
  readonly wire_envelope: string;
  readonly replays: number;
  readonly pending_state: string | null;
  readonly outcomes: readonly LogEntry[];
  readonly attempts: readonly InspectedAttempt[];
}

/** An attempt as the inspector reads it: the attempts list's entry, its run and headers. */
export interface InspectedAttempt extends AttemptEntry {
  /** 1 for the delivery, 2 and up for its replays (duplicates). */
  readonly run?: number;
  /** A webhook attempt's HTTP headers (null for a WebSocket frame). */
  readonly headers?: Readonly<Record<string, string>> | null;
}

/** What the page makes of the envelope: the payload it opened, or why it shows none. */
export type Decrypted = { readonly payload: unknown } | { readonly reason: string };

/** The state a delivery is in now: pending, or its latest final status. */
export function deliveryState(view: DeliveryView): string {
  return view.pending_state ?? view.outcomes.at(-1)?.final_status ?? 'queued';
}

/** The tone of an attempt's outcome (a frame written on a session without acks counts as delivered). */
export function attemptTone(outcome: string): 'ok' | 'warn' | 'bad' {
  if (outcome === 'delivered' || outcome === 'acked' || outcome === 'sent') return 'ok';
  return outcome === 'permanent' ? 'bad' : 'warn';
}

/** Characters of the base64 envelope drawn in the page. */
const WIRE_SHOWN = 65_536;

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** The envelope's clear parts, as `[label, value]` rows (what the service can see of it). */
export function envelopeRows(wire: string): [string, string][] {
  const bytes = fromBase64(wire);
  if (bytes === undefined) return [['format', 'not base64']];
  try {
    const e = parseEnvelope(bytes);
    const h = e.header;
    return [
      ['format', `AMS envelope v1.${e.minor}`],
      ['size', `${bytes.length} bytes`],
      ['sender', h.senderId],
      ['conversation', h.conversationId],
      ['message id', h.messageId],
      ...(h.eventType === undefined ? [] : [['event type', h.eventType] as [string, string]]),
      ['created at', h.createdAt],
      ['ephemeral key', hex(h.ephemeralPublicKey)],
      ...h.recipients.map((r, i): [string, string] => [
        `recipient ${i + 1}`,
        `${r.id} (key ${hex(r.fingerprint)})`,
      ]),
      ['nonce', hex(e.nonce)],
      ['ciphertext', `${e.ciphertext.length} bytes (sealed)`],
      ['signature', `${hex(e.signature).slice(0, 32)}…`],
    ];
  } catch (err) {
    return [
      ['size', `${bytes.length} bytes`],
      ['format', `not an envelope the page can parse: ${(err as Error).message}`],
    ];
  }
}

function heading(text: string): HTMLHeadingElement {
  const h = document.createElement('h4');
  h.textContent = text;
  return h;
}

function rows(entries: readonly (readonly [string, string])[], name: string): HTMLDListElement {
  const dl = document.createElement('dl');
  dl.dataset['section'] = name;
  for (const [k, v] of entries) {
    const dt = document.createElement('dt');
    dt.textContent = k;
    const dd = document.createElement('dd');
    dd.textContent = v;
    dl.append(dt, dd);
  }
  return dl;
}

/** The body fields every attempt carried (the WebSocket frame adds `redelivered` once sent again). */
function bodyRows(v: DeliveryView): [string, string][] {
  return [
    ['type', v.event_type],
    ['delivery_id', v.delivery_id],
    ['metadata.conversation_id', v.conversation_id],
    ['metadata.sender_id', v.sender_id],
    ['metadata.created_at', v.created_at],
  ];
}

/** Each attempt with its timing and outcome; a replay's marked as a duplicate. */
function appendAttempts(panel: HTMLElement, v: DeliveryView): void {
  panel.append(heading(`Attempts (${v.attempts.length})`));
  const list = document.createElement('ol');
  list.className = 'inspector-attempts';
  for (const a of v.attempts) {
    const li = document.createElement('li');
    li.textContent = attemptLine(a);
    li.dataset['outcome'] = a.outcome;
    li.dataset['tone'] = attemptTone(a.outcome);
    const run = a.run ?? 1;
    if (run > 1) {
      li.dataset['duplicate'] = 'true';
      const mark = document.createElement('span');
      mark.className = 'duplicate';
      mark.textContent = `replay ${run - 1}: duplicate`;
      mark.title = 'Queued again with the same delivery id: the bot should skip it as a duplicate.';
      li.append(' ', mark);
    }
    list.append(li);
  }
  if (v.attempts.length === 0) list.textContent = 'no attempt yet';
  panel.append(list);
}

/** Every final status of the id (a replay adds one). */
function appendOutcomes(panel: HTMLElement, v: DeliveryView): void {
  panel.append(heading('Final statuses'));
  const ends = document.createElement('ul');
  ends.className = 'inspector-outcomes';
  for (const [i, o] of v.outcomes.entries()) {
    const li = document.createElement('li');
    const detail = [o.latency_ms === undefined ? '' : `${o.latency_ms} ms`, o.error_class ?? '']
      .filter((d) => d !== '')
      .join(', ');
    li.textContent = `${o.completed_at.slice(11, 19)} ${o.final_status} after ${o.attempt_count} attempt(s)${detail === '' ? '' : ` (${detail})`}${i > 0 ? ' (replay)' : ''}`;
    li.dataset['tone'] = deliveryTone(o.final_status);
    ends.append(li);
  }
  if (v.outcomes.length === 0)
    ends.textContent = v.pending_state === null ? 'none' : `pending: ${v.pending_state}`;
  panel.append(ends);
}

/** The payload the page opened, or why it shows none. */
function appendDecrypted(panel: HTMLElement, decrypted: Decrypted): void {
  panel.append(heading('Decrypted (in this page)'));
  const opened = document.createElement('pre');
  opened.className = 'decrypted';
  if ('payload' in decrypted) {
    opened.dataset['opened'] = 'true';
    opened.textContent = JSON.stringify(decrypted.payload, null, 2);
  } else {
    opened.dataset['opened'] = 'false';
    opened.textContent = decrypted.reason;
  }
  panel.append(opened);
}

/** The body fields, and the HTTP headers of the last webhook attempt. */
function appendHeaders(panel: HTMLElement, v: DeliveryView): void {
  panel.append(heading('Headers'), rows(bodyRows(v), 'body'));
  const hooks = v.attempts.filter((a) => a.headers !== undefined && a.headers !== null);
  const lastHook = hooks.at(-1);
  if (lastHook?.headers != null) {
    panel.append(
      heading(`HTTP headers of webhook attempt #${lastHook.attempt}`),
      rows(Object.entries(lastHook.headers), 'http-headers'),
    );
  } else if (v.attempts.length > 0) {
    const note = document.createElement('p');
    note.className = 'muted';
    note.textContent =
      'Sent as a WebSocket event frame: these fields and the envelope (plus "redelivered": true on a frame sent again).';
    panel.append(note);
  }
}

/** The envelope as the service relayed it: its clear header, the base64 folded. */
function appendEnvelope(panel: HTMLElement, v: DeliveryView): void {
  panel.append(
    heading('Sealed envelope (as the service saw it)'),
    rows(envelopeRows(v.wire_envelope), 'envelope'),
  );
  const raw = document.createElement('details');
  const sum = document.createElement('summary');
  sum.textContent = `wire_envelope (${v.wire_envelope.length} base64 characters)`;
  const pre = document.createElement('pre');
  pre.className = 'wire';
  // An envelope can be megabytes (a ref'd delivery): the page shows its start.
  pre.textContent =
    v.wire_envelope.length > WIRE_SHOWN
      ? `${v.wire_envelope.slice(0, WIRE_SHOWN)}… (${v.wire_envelope.length - WIRE_SHOWN} more characters)`
      : v.wire_envelope;
  raw.append(sum, pre);
  panel.append(raw);
}

/** What the inspector shows beside the delivery itself. */
export interface InspectorContext {
  /** The page's name for an id (`you`, an agent's name, or the id). */
  readonly name: (id: string) => string;
  readonly close: () => void;
}

/** Draws the delivery into `panel` (replacing what it showed). */
export function renderInspector(
  panel: HTMLElement,
  v: DeliveryView,
  decrypted: Decrypted,
  ctx: InspectorContext,
): void {
  panel.replaceChildren();
  panel.dataset['deliveryId'] = v.delivery_id;
  const title = document.createElement('h3');
  title.textContent = `${v.event_type} → ${ctx.name(v.agent_id)}`;
  title.append(' ', button('close', 'close-drawer', ctx.close));
  const state = deliveryState(v);
  const summary = rows(
    [
      ['delivery', v.delivery_id],
      ['state', state],
      ['from', ctx.name(v.sender_id)],
      ['queued at', v.queued_at],
      ...(v.message_id === null ? [] : [['message id', v.message_id] as [string, string]]),
      ['replays', v.replays === 0 ? 'none' : `${v.replays} (same delivery id: duplicates)`],
    ],
    'summary',
  );
  summary.children[3]!.setAttribute('data-tone', deliveryTone(state));
  panel.append(title, summary);

  appendAttempts(panel, v);
  appendOutcomes(panel, v);
  appendDecrypted(panel, decrypted);
  appendHeaders(panel, v);
  appendEnvelope(panel, v);
  panel.hidden = false;
}
