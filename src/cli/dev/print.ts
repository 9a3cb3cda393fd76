/**
 * How `ams dev send|chat` print what the agent sent: the text of a text
 * payload, else the payload as one line of JSON.
 *
 * @module
 */
import type { EnvelopePayload } from '../../crypto/index.js';

/** The text of a `text` payload, else the payload as compact JSON (one line). */
export function payloadText(payload: EnvelopePayload): string {
  const p = payload as { type?: unknown; text?: unknown };
  if (p.type === 'text' && typeof p.text === 'string') return p.text.replace(/\r?\n/g, ' ');
  return JSON.stringify(payload);
}
