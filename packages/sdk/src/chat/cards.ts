/**
 * Chat SDK cards as artifacts: the card's interactive parts become an
 * artifact the human answers end to end encrypted, and the answer comes back
 * as Chat SDK actions (`onAction`). One button becomes a `confirm` (approve
 * clicks it); several buttons, selects and radio selects become a `form` with
 * one `choice` field each (buttons share the field `action`). What has no
 * counterpart (link buttons, images, tables, charts, button styles) is left
 * out of the artifact; a card without any button or select is sent as text.
 *
 * @module
 */
import { cardChildToFallbackText, type CardChild, type CardElement } from 'chat';
import type { ArtifactContent, FormField } from '../protocol.js';

/** What one choice of an artifact clicks: a Chat SDK action id and value. */
export interface CardChoice {
  /** The label shown to the human (unique within its field). */
  readonly label: string;
  /** The button's or select's `id`: the `actionId` of the Chat SDK action. */
  readonly actionId: string;
  /** The button's `value`, or the chosen option's value. */
  readonly value?: string | undefined;
}

/** How to turn an answer back into actions: per form field (or `confirm`), its choices. */
export interface CardActionMap {
  /** `confirm`: approving clicks `choices[0]` of the field `confirm`; `form`: one entry per field. */
  readonly kind: 'confirm' | 'form';
  readonly fields: Readonly<Record<string, readonly CardChoice[]>>;
}

/** An artifact's content made from a card, with the map back to its actions. */
export interface CardArtifact {
  readonly content: ArtifactContent;
  readonly actions: CardActionMap;
}

const TITLE_MAX = 200;
const LABEL_MAX = 200;
const BODY_MAX = 4000;
const OPTIONS_MAX = 100;

const clip = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;

/** Labels made unique within a field: a repeated one gets " (2)", " (3)" … */
function uniqueLabels<T extends { label: string }>(items: readonly T[]): T[] {
  const seen = new Map<string, number>();
  return items.map((item) => {
    const base = clip(item.label.trim() === '' ? 'Choose' : item.label, LABEL_MAX - 4);
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return { ...item, label: n === 1 ? base : `${base} (${n})` };
  });
}

/** The card's text: its title's siblings rendered as the Chat SDK's plain fallback, actions left out. */
function cardText(card: CardElement): string {
  const lines: string[] = [];
  if (card.subtitle !== undefined && card.subtitle !== '') lines.push(card.subtitle);
  for (const child of card.children) {
    if (child.type === 'actions') continue;
    const text = cardChildToFallbackText(child as CardChild);
    if (text !== null && text.trim() !== '') lines.push(text);
  }
  return lines.join('\n');
}

/** The card's buttons, selects and radio selects, in order (link buttons left out: they have no answer). */
function interactive(card: CardElement) {
  const buttons: CardChoice[] = [];
  const selects: { id: string; label: string; optional: boolean; options: CardChoice[] }[] = [];
  const visit = (children: readonly CardChild[]): void => {
    for (const child of children) {
      if (child.type === 'section') visit(child.children);
      if (child.type !== 'actions') continue;
      for (const el of child.children) {
        if (el.type === 'button' && el.disabled !== true) {
          buttons.push({ label: el.label, actionId: el.id, value: el.value });
        } else if (el.type === 'select' || el.type === 'radio_select') {
          const options = el.options
            .slice(0, OPTIONS_MAX)
            .map((o) => ({ label: o.label, actionId: el.id, value: o.value }));
          if (options.length > 0) {
            selects.push({ id: el.id, label: el.label, optional: el.optional === true, options });
          }
        }
      }
    }
  };
  visit(card.children);
  return { buttons, selects };
}

/**
 * The artifact for a card, or `undefined` when the card has nothing to answer
 * (no enabled button, select or radio select): send it as text then.
 */
export function cardToArtifact(card: CardElement): CardArtifact | undefined {
  const { buttons, selects } = interactive(card);
  if (buttons.length === 0 && selects.length === 0) return undefined;
  const text = cardText(card);
  const title = clip(card.title ?? (text.split('\n')[0] || 'Choose'), TITLE_MAX);
  if (buttons.length === 1 && selects.length === 0) {
    const body = card.title === undefined ? text.split('\n').slice(1).join('\n') : text;
    return {
      content: {
        kind: 'confirm',
        title,
        ...(body.trim() === '' ? {} : { body: clip(body, BODY_MAX) }),
      },
      actions: { kind: 'confirm', fields: { confirm: buttons } },
    };
  }
  const fields: FormField[] = [];
  const map: Record<string, readonly CardChoice[]> = {};
  if (buttons.length > 0) {
    const choices = uniqueLabels(buttons.slice(0, OPTIONS_MAX));
    fields.push({
      name: 'action',
      label: clip(text.trim() === '' || card.title === undefined ? title : text, LABEL_MAX),
      input: 'choice',
      required: selects.length === 0,
      options: choices.map((c) => c.label),
    });
    map['action'] = choices;
  }
  for (const [i, select] of selects.slice(0, 49).entries()) {
    const name = `select_${i + 1}`;
    const choices = uniqueLabels(select.options);
    fields.push({
      name,
      label: clip(select.label, LABEL_MAX),
      input: 'choice',
      required: !select.optional,
      options: choices.map((c) => c.label),
    });
    map[name] = choices;
  }
  return { content: { kind: 'form', title, fields }, actions: { kind: 'form', fields: map } };
}

/**
 * The actions an approved answer clicks: for a `confirm`, its one button; for a
 * `form`, the choice picked in each field (unknown labels are ignored: the
 * human's client checks answers against the form, an answer that does not fit
 * clicks nothing).
 */
export function answerToActions(actions: CardActionMap, data: unknown): CardChoice[] {
  if (actions.kind === 'confirm') return [...(actions.fields['confirm'] ?? [])].slice(0, 1);
  if (typeof data !== 'object' || data === null) return [];
  const picked: CardChoice[] = [];
  for (const [field, choices] of Object.entries(actions.fields)) {
    const label = (data as Record<string, unknown>)[field];
    if (typeof label !== 'string') continue;
    const choice = choices.find((c) => c.label === label);
    if (choice !== undefined) picked.push(choice);
  }
  return picked;
}

/**
 * A card's action map as kept in the Chat SDK's state (so an answer after a
 * restart, or on another process sharing the state, still reaches `onAction`):
 * the thread, the action ids and values, and each label as a SHA-256 digest,
 * never the label itself (the state holds no text of the card).
 */
export interface StoredCard {
  /** The format of this record. */
  readonly v: 1;
  /** The thread the card was posted in. */
  readonly threadId: string;
  /** The map back to the actions, labels as digests. */
  readonly actions: CardActionMap;
  /** When the artifact expires (ms since the epoch, the agent's clock): the state keeps the record until then. */
  readonly expiresAt: number;
}

/** A label's digest: SHA-256, base64url, 128 bits (what {@link StoredCard} keeps instead of the label). */
async function labelDigest(label: string): Promise<string> {
  const hash = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(label));
  return Buffer.from(hash).toString('base64url').slice(0, 22);
}

/** The record of a card to keep in the Chat SDK's state: its labels replaced by their digests. */
export async function storedCardOf(
  threadId: string,
  actions: CardActionMap,
  expiresAt: number,
): Promise<StoredCard> {
  const fields: Record<string, CardChoice[]> = {};
  for (const [name, choices] of Object.entries(actions.fields)) {
    fields[name] = await Promise.all(
      choices.map(async (c) => ({
        label: await labelDigest(c.label),
        actionId: c.actionId,
        ...(c.value === undefined ? {} : { value: c.value }),
      })),
    );
  }
  return { v: 1, threadId, actions: { kind: actions.kind, fields }, expiresAt };
}

/** True when `value` has the shape of a {@link StoredCard} (the state is the bot's, but check what it gives). */
export function isStoredCard(value: unknown): value is StoredCard {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Partial<StoredCard>;
  if (r.v !== 1 || typeof r.threadId !== 'string' || typeof r.expiresAt !== 'number') return false;
  const a = r.actions;
  if (typeof a !== 'object' || a === null || (a.kind !== 'confirm' && a.kind !== 'form')) return false;
  if (typeof a.fields !== 'object' || a.fields === null) return false;
  return Object.values(a.fields).every(
    (choices) =>
      Array.isArray(choices) &&
      choices.every(
        (c: Partial<CardChoice>) =>
          typeof c === 'object' &&
          c !== null &&
          typeof c.label === 'string' &&
          typeof c.actionId === 'string' &&
          (c.value === undefined || typeof c.value === 'string'),
      ),
  );
}

/** The actions an approved answer clicks, by a stored card (the answer's labels digested to match). */
export async function storedAnswerToActions(stored: StoredCard, data: unknown): Promise<CardChoice[]> {
  if (stored.actions.kind === 'confirm' || typeof data !== 'object' || data === null) {
    return answerToActions(stored.actions, data);
  }
  const digested: Record<string, string> = {};
  for (const field of Object.keys(stored.actions.fields)) {
    const label = (data as Record<string, unknown>)[field];
    if (typeof label === 'string') digested[field] = await labelDigest(label);
  }
  return answerToActions(stored.actions, digested);
}
