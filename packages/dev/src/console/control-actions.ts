/**
 * The console's buttons for the rest of the control API: suspend or restore
 * the relation of the open one-to-one conversation (the agent gets
 * `relation.suspended` / `relation.restored`, sealed by the system sender),
 * and send the selected agent any system event. Each call is shown as its
 * `curl` line.
 *
 * @module
 */
import type { ConsoleCall } from './api.js';

/** What the actions need from the page. */
export interface ControlActionDeps {
  /** Calls the server; `show` puts the call's `curl` line on the page. */
  call<T>(c: ConsoleCall, show?: boolean): Promise<T>;
  /** A status line for the developer. */
  say(text: string): void;
  /** Re-reads the service side. */
  refresh(): Promise<void>;
}

/** The longest event type the control API takes. */
const EVENT_TYPE_MAX_CHARS = 100;

/** Suspends or restores the relation of a one-to-one conversation. */
export async function setRelation(
  d: ControlActionDeps,
  conversationId: string | undefined,
  change: 'suspend' | 'restore',
): Promise<void> {
  if (conversationId === undefined) throw new Error('Open a chat with an agent first.');
  const path = `/_control/conversations/${encodeURIComponent(conversationId)}/${change}`;
  await d.call({ method: 'POST', path }, true);
  d.say(change === 'suspend' ? 'relation suspended' : 'relation restored');
  await d.refresh();
}

/** A system event as typed in the page: its type, and its payload as JSON text (an object, or empty). */
export interface SystemEventInput {
  readonly type: string;
  readonly payload: string;
}

/**
 * The control API's body for a typed system event.
 *
 * @throws Error naming the field when the type is empty or too long, or the payload is not a JSON object.
 */
export function systemEventBody(
  input: SystemEventInput,
  conversationId: string | undefined,
): Readonly<Record<string, unknown>> {
  const type = input.type.trim();
  if (type === '' || type.length > EVENT_TYPE_MAX_CHARS)
    throw new Error(`The event type must be 1 to ${EVENT_TYPE_MAX_CHARS} characters.`);
  let payload: unknown = {};
  if (input.payload.trim() !== '') {
    try {
      payload = JSON.parse(input.payload);
    } catch {
      throw new Error('The event payload is not JSON: write an object such as {"text":"hello"}.');
    }
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
    throw new Error('The event payload must be a JSON object.');
  return { type, payload, ...(conversationId === undefined ? {} : { conversation_id: conversationId }) };
}

/** What the service did with a system event. */
export type SystemEventOutcome = 'queued' | 'sent' | 'not_connected' | 'no_keys';

/** Sends the agent a system event (in the open conversation, if any). */
export async function sendSystemEvent(
  d: ControlActionDeps,
  agentId: string | undefined,
  input: SystemEventInput,
  conversationId: string | undefined,
): Promise<void> {
  if (agentId === undefined) throw new Error('Pick an agent first.');
  const body = systemEventBody(input, conversationId);
  const path = `/_control/agents/${encodeURIComponent(agentId)}/events`;
  const r = await d.call<{ outcome: SystemEventOutcome }>({ method: 'POST', path, body }, true);
  d.say(`system event ${String(body['type'])}: ${r.outcome}`);
  await d.refresh();
}
