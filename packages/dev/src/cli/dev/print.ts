/**
 * How `ams dev send|chat` print what the agent sent: the text of a text
 * payload, else the payload as one line of JSON.
 *
 * @module
 */
import type { EnvelopePayload } from 'agent-messaging-sdk/crypto';

/** True for a C0 or C1 control character or DEL. */
function isControl(ch: string): boolean {
  const c = ch.charCodeAt(0);
  return c < 0x20 || (c >= 0x7f && c <= 0x9f);
}

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
      typeof p.name === 'string' ? [...p.name].map((ch) => (isControl(ch) ? ' ' : ch)).join('') : '?';
    return `file ${name} (${String(p.size)} bytes, ${String(p.content_type)})`;
  }
  return JSON.stringify(payload);
}
