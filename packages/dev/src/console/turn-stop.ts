/**
 * The console's stop button (issue #26): seals a `turn.stop` in the page,
 * signed by the human like any message, and posts it to the open
 * conversation; the agent aborts its running turn (its stream ends
 * `aborted` / `stopped`) and answers with a sealed `turn.stopped`, shown as
 * a notice line. The service relays ciphertext only.
 *
 * @module
 */
import {
  readTurnStop,
  readTurnStopped,
  routePath,
  SERVICE_ROUTES,
  TURN_STOP_TYPE,
} from 'agent-messaging-sdk/protocol';
import type { ConsoleCall } from './api.js';

/** What the stop button needs from the page. */
export interface TurnStopDeps {
  /** The open conversation, if any. */
  conversationId(): string | undefined;
  /** Seals a payload from this page for the open conversation. */
  seal(payload: { type: string; stop_id: string }): Promise<string>;
  /** Makes a service call (with the user's token). */
  call<T>(c: ConsoleCall): Promise<T>;
  /** Shows the equivalent curl line. */
  showCurl(c: ConsoleCall): void;
}

/** Seals and posts a stop for the open conversation; resolves with its stop id. */
export async function sendTurnStop(deps: TurnStopDeps): Promise<string | undefined> {
  const conversationId = deps.conversationId();
  if (conversationId === undefined) return undefined;
  const stopId = globalThis.crypto.randomUUID();
  const wire = await deps.seal({ type: TURN_STOP_TYPE, stop_id: stopId });
  const path = routePath(SERVICE_ROUTES.userSendMessage, { id: conversationId });
  await deps.call({ method: 'POST', path, auth: true, body: { wire_envelope: wire } });
  deps.showCurl({ method: 'POST', path, auth: true, body: { wire_envelope: '<sealed in the browser>' } });
  return stopId;
}

/**
 * The notice line of a turn-control payload: the agent's answer to a stop,
 * or the page's own stop read back; undefined for any other payload.
 */
export function turnControlNotice(payload: unknown): string | undefined {
  const stopped = readTurnStopped(payload);
  if (stopped !== undefined) {
    return stopped.stopped === 0
      ? '⏹ nothing was running'
      : `⏹ stopped (${stopped.stopped} turn${stopped.stopped === 1 ? '' : 's'})`;
  }
  return readTurnStop(payload) === undefined ? undefined : '⏹ stop sent';
}

/** Adds the notice to the message list (class `turn-stopped`). */
export function showTurnNotice(list: HTMLElement, text: string, messageId: string): void {
  if (list.querySelector(`[data-message-id="${CSS.escape(messageId)}"]`) !== null) return;
  const li = document.createElement('li');
  li.className = 'turn-stopped';
  li.textContent = text;
  li.dataset['messageId'] = messageId;
  list.append(li);
  li.scrollIntoView({ block: 'end' });
}
