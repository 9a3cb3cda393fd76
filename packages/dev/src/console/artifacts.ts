/**
 * Artifacts in the console, as a client shows them: a card with the title,
 * the form's fields or the tool's request, and Approve / Deny (with the
 * human's reason). The answer is sealed in the page (`artifact_response`)
 * and posted; the card then shows what the service said (accepted, or
 * already closed — e.g. denied `user_timeout` when it was left to time out).
 *
 * @module
 */
import {
  answerDataProblems,
  ArtifactPayloadSchema,
  HUMAN_DENIED_REASONS,
  type ArtifactAnswerPayload,
  type ArtifactPayload,
  type FormField,
} from 'agent-messaging-sdk/protocol';

/** What the service said to an answer. */
export interface AnswerOutcome {
  readonly accepted: boolean;
  readonly state: string;
  readonly reason: string | null;
}

/** Seals and posts an answer. */
export type AnswerArtifact = (answer: ArtifactAnswerPayload) => Promise<AnswerOutcome>;

/** The artifact a message payload carries, or undefined. */
export function artifactOf(payload: Readonly<Record<string, unknown>>): ArtifactPayload | undefined {
  if (payload['type'] !== 'artifact') return undefined;
  const parsed = ArtifactPayloadSchema.safeParse(payload);
  return parsed.success ? parsed.data : undefined;
}

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<Record<'className' | 'textContent' | 'name' | 'type', string>> = {},
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  Object.assign(e, props);
  return e;
}

function fieldInput(f: FormField): HTMLElement {
  if (f.input === 'choice') {
    const select = el('select', { name: f.name });
    for (const o of f.options ?? []) select.append(el('option', { textContent: o }));
    return select;
  }
  const input = el('input', {
    name: f.name,
    type: f.input === 'boolean' ? 'checkbox' : f.input === 'number' ? 'number' : 'text',
  });
  input.required = f.required === true;
  return input;
}

/** The form's values as the field types say (an empty text or number is left out). */
function formData(card: HTMLElement, fields: readonly FormField[]): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const f of fields) {
    const input = card.querySelector<HTMLInputElement | HTMLSelectElement>(`[name="${f.name}"]`);
    if (input === null) continue;
    if (f.input === 'boolean') data[f.name] = (input as HTMLInputElement).checked;
    else if (input.value === '') continue;
    else data[f.name] = f.input === 'number' ? Number(input.value) : input.value;
  }
  return data;
}

/** Fills `li` with the artifact's card; the buttons answer through `answer`. */
export function renderArtifact(li: HTMLElement, a: ArtifactPayload, answer: AnswerArtifact): void {
  li.classList.add('artifact');
  li.dataset['artifactId'] = a.artifact_id;
  li.dataset['revision'] = String(a.revision);
  li.dataset['state'] = 'open';
  li.replaceChildren(el('strong', { textContent: a.content.title }));
  if (a.revision > 1)
    li.append(el('span', { className: 'revision muted', textContent: ` revision ${a.revision}` }));
  const c = a.content;
  if (c.kind === 'confirm' && c.body !== undefined) li.append(el('p', { textContent: c.body }));
  let result: HTMLTextAreaElement | undefined;
  if (c.kind === 'form') {
    for (const f of c.fields) {
      const label = el('label', { textContent: `${f.label}${f.required === true ? ' *' : ''} ` });
      label.append(fieldInput(f));
      li.append(label);
    }
  } else if (c.kind === 'tool_request') {
    li.append(el('code', { textContent: `${c.tool.name}(${JSON.stringify(c.tool.arguments)})` }));
    result = el('textarea', { name: 'tool-result' });
    result.placeholder = 'result as JSON, e.g. {"ok":true}';
    li.append(result);
  }
  const approve = el('button', { type: 'button', className: 'approve', textContent: 'Approve' });
  const reason = el('select', { name: 'deny-reason' });
  for (const r of HUMAN_DENIED_REASONS) reason.append(el('option', { textContent: r }));
  const deny = el('button', { type: 'button', className: 'deny', textContent: 'Deny' });
  const outcome = el('p', { className: 'outcome muted' });
  const row = el('div', { className: 'artifact-actions' });
  row.append(approve, deny, reason);
  li.append(row, outcome);
  const base = { type: 'artifact_response', artifact_id: a.artifact_id, revision: a.revision } as const;

  const send = async (body: ArtifactAnswerPayload) => {
    approve.disabled = deny.disabled = true;
    try {
      const r = await answer(body);
      li.dataset['state'] = r.state;
      outcome.textContent = r.accepted
        ? body.status === 'approved'
          ? 'approved'
          : `denied (${body.reason})`
        : `already closed: ${r.state}${r.reason === null ? '' : ` (${r.reason})`}`;
    } catch (err) {
      approve.disabled = deny.disabled = false;
      outcome.textContent = `error: ${(err as Error).message}`;
    }
  };
  approve.addEventListener('click', () => {
    let data: Record<string, unknown> = {};
    if (c.kind === 'form') data = formData(li, c.fields);
    if (result !== undefined && result.value.trim() !== '') {
      try {
        data = JSON.parse(result.value) as Record<string, unknown>;
      } catch {
        outcome.textContent = 'the result is not JSON';
        return;
      }
    }
    const problems = answerDataProblems(c, data);
    if (problems.length > 0) {
      outcome.textContent = problems.join('; ');
      return;
    }
    void send({ ...base, status: 'approved', data });
  });
  deny.addEventListener('click', () => {
    const r = reason.value as (typeof HUMAN_DENIED_REASONS)[number];
    void send({ ...base, status: 'denied', reason: r });
  });
}

/**
 * A later revision of an artifact already shown in `list` replaces its card
 * in place (answers then go with the newest revision); an older or the same
 * revision is ignored. False when no card shows this artifact yet (the caller
 * adds one).
 */
export function reviseArtifactCard(list: HTMLElement, a: ArtifactPayload, answer: AnswerArtifact): boolean {
  const card = list.querySelector<HTMLElement>(`[data-artifact-id="${CSS.escape(a.artifact_id)}"]`);
  if (card === null) return false;
  if (Number(card.dataset['revision'] ?? '1') < a.revision) renderArtifact(card, a, answer);
  return true;
}
