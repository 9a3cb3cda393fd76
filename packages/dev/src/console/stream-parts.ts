/**
 * Typed stream parts in the console (#26): a streamed reply's bubble shows
 * its parts in order, as the SDK's `StreamPartsReader` assembles them: text,
 * reasoning (folded), plan steps with their latest status (updated in place),
 * tool calls with their input and, once it came, their output or error, and
 * sources. Everything is put in with `textContent`; a source becomes a link
 * only for an `https:` or `http:` URL.
 *
 * @module
 */
import type { StreamPart } from 'agent-messaging-sdk/protocol';

const STEP_MARK: Readonly<Record<string, string>> = {
  pending: '○',
  running: '◔',
  done: '✓',
  failed: '✗',
};

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

function json(value: unknown): string {
  return value === undefined ? '' : JSON.stringify(value);
}

/** A source's URL when it is safe to link to (http or https), else undefined. */
export function linkableUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}

function partNode(part: StreamPart): HTMLElement {
  switch (part.type) {
    case 'text':
      return el('span', 'part-text', part.text);
    case 'reasoning': {
      const d = el('details', 'part-reasoning');
      d.append(el('summary', '', 'reasoning'), el('span', 'part-reasoning-text', part.text));
      return d;
    }
    case 'step': {
      const s = el('div', 'part-step');
      s.dataset['stepId'] = part.id;
      s.dataset['status'] = part.status;
      s.append(
        el('span', 'step-mark', STEP_MARK[part.status] ?? '?'),
        el('span', 'step-title', ` ${part.title}`),
      );
      if (part.detail !== undefined) s.append(el('span', 'step-detail muted', ` — ${part.detail}`));
      return s;
    }
    case 'tool': {
      const t = el('div', 'part-tool');
      t.dataset['callId'] = part.callId;
      t.dataset['state'] = part.state;
      t.append(el('code', 'tool-name', part.name), el('code', 'tool-input', `(${json(part.input)})`));
      if (part.state === 'output-available') t.append(el('code', 'tool-output', ` → ${json(part.output)}`));
      if (part.state === 'output-error') t.append(el('span', 'tool-error', ` ✗ ${part.error ?? ''}`));
      return t;
    }
    case 'source': {
      const href = linkableUrl(part.url);
      const label = part.title ?? part.url ?? part.id;
      const s = el('div', 'part-source');
      s.dataset['sourceId'] = part.id;
      if (href === undefined) s.append(el('span', '', `[${label}]`));
      else {
        const a = el('a', '', label);
        a.href = href;
        a.rel = 'noopener noreferrer';
        a.target = '_blank';
        s.append(a);
      }
      return s;
    }
  }
}

/**
 * Fills a stream's bubble with its parts (replacing what it showed); a
 * text-only stream shows as plain text, as before.
 */
export function renderStreamParts(bubble: HTMLElement, text: string, parts: readonly StreamPart[]): void {
  if (parts.every((p) => p.type === 'text')) {
    bubble.textContent = text;
    return;
  }
  bubble.replaceChildren(...parts.map(partNode));
}
