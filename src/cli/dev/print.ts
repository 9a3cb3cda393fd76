/**
 * How `ams dev send|chat` print what the agent sent: the text of a text
 * payload, else the payload as one line of JSON.
 *
 * @module
 */
import { hasControlChar } from '../../core/field-rules.js';
import type { EnvelopePayload } from '../../crypto/index.js';

/**
 * The text of a `text` payload; for a `file` payload its name, size and media
 * type (never its key); else the payload as compact JSON (one line).
 */
export function payloadText(payload: EnvelopePayload): string {
  const p = payload as {
    type?: unknown;
    text?: unknown;
    name?: unknown;
    size?: unknown;
    content_type?: unknown;
  };
  if (p.type === 'text' && typeof p.text === 'string') return p.text.replace(/\r?\n/g, ' ');
  if (p.type === 'file') {
    const name =
      typeof p.name === 'string' ? [...p.name].map((ch) => (hasControlChar(ch) ? ' ' : ch)).join('') : '?';
    return `file ${name} (${String(p.size)} bytes, ${String(p.content_type)})`;
  }
  return JSON.stringify(payload);
}
