/**
 * MCP elicitation (`elicitation/create`: a server asks the client for input)
 * mapped onto artifacts the owner answers: a form-mode request becomes a
 * `form` artifact (a `confirm` when it asks for no field), a URL-mode request
 * a `confirm` showing the link. The JSON Schema subset MCP allows maps onto
 * form fields: string → `text`, number/integer → `number`, boolean →
 * `boolean`, a single-select enum → `choice`. The rest (multi-select arrays,
 * anything else) is refused with a {@link ValidationError}.
 *
 * @module
 */
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { Agent } from '../index.js';
import {
  ARTIFACT_LIMITS,
  systemClock,
  TimeoutError,
  ValidationError,
  type ArtifactContent,
  type Clock,
  type FormField,
  type ValidationIssue,
} from '../protocol.js';
import { askOwner, type AskOutcome } from './ask.js';
import { ownerConversation } from './owner.js';

/** How long the owner has to answer an elicitation by default: 10 minutes. */
export const DEFAULT_ELICITATION_TIMEOUT_MS = 10 * 60_000;

const TITLE_MAX = 200;
const LABEL_MAX = 200;
const BODY_MAX = 4000;
const FIELD_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** The params of an `elicitation/create` request (form or URL mode). */
export type ElicitParams = ElicitRequest['params'];
/** A value of an accepted elicitation's content. */
export type ElicitValue = string | number | boolean;

/** One property of a form-mode elicitation, as the bridge maps it. */
interface MappedField {
  readonly property: string;
  readonly field: FormField;
  /** For a `choice`: the option shown → the value sent back. */
  readonly values?: ReadonlyMap<string, string>;
  readonly check: (value: unknown) => string | undefined;
}

/** An elicitation mapped onto an artifact, and the way back from the owner's answer. */
export interface ElicitationArtifact {
  /** `form`, or `url` (the owner opens a link; an approval carries no content). */
  readonly mode: 'form' | 'url';
  /** What the owner is shown. */
  readonly content: ArtifactContent;
  /** The elicitation's message when it is longer than an artifact title (sent as a text message first). */
  readonly preface?: string;
  /**
   * The MCP `content` of an approved answer: form values under the schema's
   * property names, each checked against its schema.
   *
   * @throws {@link ValidationError} when the answer does not fit the requested schema.
   */
  contentOf(data: Readonly<Record<string, unknown>>): Record<string, ElicitValue>;
}

const clip = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;

function refuse(issues: ValidationIssue[]): never {
  throw new ValidationError({
    message: `The elicitation cannot be shown as a form: ${issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}.`,
    issues,
    params: { reason: 'unsupported_schema' },
  });
}

/** A form field name for a schema property (the property's own when it fits). */
function fieldNameOf(property: string, taken: Set<string>): string {
  let base = property
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .slice(0, 60);
  if (!/^[a-z]/.test(base)) base = `f_${base}`.slice(0, 60);
  let name = FIELD_NAME.test(property) ? property : base;
  for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
  taken.add(name);
  return name;
}

type PropertySchema = Readonly<Record<string, unknown>>;

function str(schema: PropertySchema, key: string): string | undefined {
  const v = schema[key];
  return typeof v === 'string' ? v : undefined;
}
function num(schema: PropertySchema, key: string): number | undefined {
  const v = schema[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** `[ [shown, value] ]` of a single-select enum, or undefined when `schema` is not one. */
function choicesOf(schema: PropertySchema): [string, string][] | undefined {
  const oneOf = schema['oneOf'];
  if (Array.isArray(oneOf)) {
    return oneOf.map((o: unknown) => {
      const c = (o ?? {}) as PropertySchema;
      const value = str(c, 'const') ?? '';
      return [str(c, 'title') ?? value, value];
    });
  }
  const values = schema['enum'];
  if (!Array.isArray(values)) return undefined;
  const names = Array.isArray(schema['enumNames']) ? (schema['enumNames'] as unknown[]) : undefined;
  return values.map((v: unknown, i) => {
    const value = typeof v === 'string' ? v : '';
    const shown = names?.[i];
    return [typeof shown === 'string' ? shown : value, value];
  });
}

const FORMATS: Readonly<Record<string, (s: string) => boolean>> = {
  email: (s) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s),
  uri: (s) => URL.canParse(s),
  date: (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)),
  'date-time': (s) => /^\d{4}-\d{2}-\d{2}T/.test(s) && !Number.isNaN(Date.parse(s)),
};

/** Maps one property; returns issues instead when it has no form field. */
function mapProperty(
  property: string,
  raw: unknown,
  required: boolean,
  taken: Set<string>,
): MappedField | ValidationIssue {
  const path = ['requestedSchema', 'properties', property];
  if (typeof raw !== 'object' || raw === null) return { path, message: 'not a schema' };
  const schema = raw as PropertySchema;
  const type = schema['type'];
  const hints: string[] = [];
  let input: FormField['input'];
  let check: (value: unknown) => string | undefined;
  let values: Map<string, string> | undefined;
  if (type === 'boolean') {
    input = 'boolean';
    check = (v) => (typeof v === 'boolean' ? undefined : 'expected true or false');
  } else if (type === 'number' || type === 'integer') {
    input = 'number';
    const min = num(schema, 'minimum');
    const max = num(schema, 'maximum');
    if (type === 'integer') hints.push('a whole number');
    if (min !== undefined || max !== undefined) hints.push(`${min ?? '…'} to ${max ?? '…'}`);
    check = (v) => {
      if (typeof v !== 'number' || !Number.isFinite(v)) return 'expected a number';
      if (type === 'integer' && !Number.isInteger(v)) return 'expected a whole number';
      if ((min !== undefined && v < min) || (max !== undefined && v > max)) return 'out of range';
      return undefined;
    };
  } else if (type === 'string' && (schema['enum'] !== undefined || schema['oneOf'] !== undefined)) {
    const choices = choicesOf(schema);
    const shown = choices?.map(([s]) => s) ?? [];
    if (
      choices === undefined ||
      choices.length === 0 ||
      choices.length > 100 ||
      choices.some(([s, v]) => s === '' || v === '' || s.length > LABEL_MAX) ||
      new Set(shown).size !== shown.length
    ) {
      return {
        path,
        message: 'an enum needs 1 to 100 distinct, non-empty options of at most 200 characters',
      };
    }
    input = 'choice';
    values = new Map(choices);
    const options = values;
    check = (v) => (typeof v === 'string' && options.has(v) ? undefined : 'not one of the options');
  } else if (type === 'string') {
    input = 'text';
    const format = str(schema, 'format');
    const minLength = num(schema, 'minLength');
    const maxLength = num(schema, 'maxLength');
    const test = format === undefined ? undefined : FORMATS[format];
    if (format !== undefined && test === undefined)
      return { path, message: `format "${format}" is not supported` };
    if (format !== undefined) hints.push(format);
    if (minLength !== undefined || maxLength !== undefined) {
      hints.push(`${minLength ?? 0} to ${maxLength ?? '…'} characters`);
    }
    check = (v) => {
      if (typeof v !== 'string') return 'expected text';
      if (
        (minLength !== undefined && v.length < minLength) ||
        (maxLength !== undefined && v.length > maxLength)
      ) {
        return 'length out of range';
      }
      if (test !== undefined && !test(v)) return `not a valid ${format}`;
      return undefined;
    };
  } else if (type === 'array') {
    return { path, message: 'multi-select (array) fields have no form field' };
  } else {
    return { path, message: `type ${JSON.stringify(type)} has no form field` };
  }
  const title = str(schema, 'title') ?? property;
  const description = str(schema, 'description');
  const label = [title, description, hints.length > 0 ? `(${hints.join(', ')})` : undefined]
    .filter((s) => s !== undefined && s !== '')
    .join(' — ');
  const name = fieldNameOf(property, taken);
  const field: FormField = {
    name,
    label: clip(label.trim() === '' ? name : label, LABEL_MAX),
    input,
    ...(required ? { required: true } : {}),
    ...(values === undefined ? {} : { options: [...values.keys()] }),
  };
  return { property, field, check, ...(values === undefined ? {} : { values }) };
}

/**
 * Maps the params of an `elicitation/create` request onto the artifact the
 * owner answers, and back.
 *
 * @throws {@link ValidationError} (`params.reason: 'unsupported_schema'`, one
 * issue per property) when a property has no form field: a multi-select
 * (array), an unknown type or format, an enum without usable options, or more
 * than 50 properties.
 * @example
 * ```ts
 * const mapped = elicitationToArtifact({ message: 'Where to?', requestedSchema: {
 *   type: 'object', properties: { city: { type: 'string', title: 'City' } }, required: ['city'] } });
 * mapped.content; // { kind: 'form', title: 'Where to?', fields: [{ name: 'city', label: 'City', input: 'text', required: true }] }
 * ```
 */
export function elicitationToArtifact(params: ElicitParams): ElicitationArtifact {
  const message = params.message;
  const title = clip(message.trim() === '' ? 'Input requested' : message, TITLE_MAX);
  const preface = message.length > TITLE_MAX ? message : undefined;
  const withPreface = preface === undefined ? {} : { preface };
  if (params.mode === 'url') {
    const url = (params as { url: string }).url;
    return {
      mode: 'url',
      content: { kind: 'confirm', title, body: clip(`Open this link to continue: ${url}`, BODY_MAX) },
      ...withPreface,
      contentOf: () => ({}),
    };
  }
  const schema = (params as { requestedSchema?: { properties?: unknown; required?: unknown } })
    .requestedSchema;
  const properties = (schema?.properties ?? {}) as Readonly<Record<string, unknown>>;
  const required = new Set(Array.isArray(schema?.required) ? (schema.required as string[]) : []);
  const names = Object.keys(properties);
  if (names.length === 0) {
    return { mode: 'form', content: { kind: 'confirm', title }, ...withPreface, contentOf: () => ({}) };
  }
  if (names.length > ARTIFACT_LIMITS.maxFormFields) {
    refuse([
      {
        path: ['requestedSchema', 'properties'],
        message: `more than ${ARTIFACT_LIMITS.maxFormFields} fields`,
      },
    ]);
  }
  const taken = new Set<string>();
  const mapped: MappedField[] = [];
  const issues: ValidationIssue[] = [];
  for (const name of names) {
    const m = mapProperty(name, properties[name], required.has(name), taken);
    if ('field' in m) mapped.push(m);
    else issues.push(m);
  }
  if (issues.length > 0) refuse(issues);
  return {
    mode: 'form',
    content: { kind: 'form', title, fields: mapped.map((m) => m.field) },
    ...withPreface,
    contentOf(data) {
      const out: Record<string, ElicitValue> = {};
      const problems: ValidationIssue[] = [];
      for (const m of mapped) {
        const value = data[m.field.name];
        if (value === undefined || value === null || value === '') {
          if (m.field.required === true) problems.push({ path: [m.property], message: 'required' });
          continue;
        }
        const problem = m.check(value);
        if (problem !== undefined) problems.push({ path: [m.property], message: problem });
        else out[m.property] = m.values?.get(value as string) ?? (value as ElicitValue);
      }
      if (problems.length > 0) {
        throw new ValidationError({
          message: `The owner's answer does not fit the requested schema: ${problems.map((p) => `${p.path.join('.')}: ${p.message}`).join('; ')}.`,
          issues: problems,
          params: { reason: 'answer_mismatch' },
        });
      }
      return out;
    },
  };
}

/** The MCP result of an owner's answer. */
export function elicitResultOf(mapped: ElicitationArtifact, outcome: AskOutcome): ElicitResult {
  if (outcome.status === 'approved') {
    return mapped.mode === 'url'
      ? { action: 'accept' }
      : { action: 'accept', content: mapped.contentOf(outcome.data) };
  }
  // The owner said no: decline. The service closed it (timeouts, revocation) or it expired: cancel.
  if (outcome.status === 'denied' && outcome.by === 'user') return { action: 'decline' };
  return { action: 'cancel' };
}

/** Options of {@link createElicitationHandler}. */
export interface ElicitationHandlerOptions {
  /** The agent that asks its owner (connected, or connected before the first request). */
  readonly agent: Agent;
  /** The conversation with the owner. @defaultValue the agent's one-to-one conversation with its owner */
  readonly conversationId?: string;
  /** How long the owner has to answer; then the result is `cancel`. @defaultValue 10 minutes */
  readonly timeoutMs?: number;
  /** Time of the wait. @defaultValue `systemClock` */
  readonly clock?: Clock;
}

/** The handler of `elicitation/create` an MCP client installs. */
export type ElicitationHandler = (
  request: ElicitRequest,
  extra?: { readonly signal?: AbortSignal },
) => Promise<ElicitResult>;

/**
 * A handler for an MCP *client*: each `elicitation/create` request of a
 * server is sent to the agent's owner as an artifact (sealed end to end) and
 * answered with the owner's decision: approved → `accept` with the form's
 * values, denied by the owner → `decline`, no answer in time, expired or
 * closed by the service → `cancel`.
 *
 * @throws (from the handler) {@link ValidationError} when the requested schema
 * has no form (see {@link elicitationToArtifact}) or the answer does not fit it;
 * the MCP SDK returns it to the server as an error.
 * @example
 * ```ts
 * import { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
 * import { createElicitationHandler } from 'agent-messaging-sdk/mcp';
 *
 * const client = new Client({ name: 'my-agent', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
 * client.setRequestHandler(ElicitRequestSchema, createElicitationHandler({ agent }));
 * ```
 */
export function createElicitationHandler(options: ElicitationHandlerOptions): ElicitationHandler {
  const clock = options.clock ?? systemClock;
  const timeoutMs = options.timeoutMs ?? DEFAULT_ELICITATION_TIMEOUT_MS;
  let owner: Promise<string> | undefined;
  const conversationId = (): Promise<string> => {
    if (options.conversationId !== undefined) return Promise.resolve(options.conversationId);
    owner ??= ownerConversation(options.agent).then(
      (o) => o.conversationId,
      (err: unknown) => {
        owner = undefined;
        throw err;
      },
    );
    return owner;
  };
  return async (request, extra) => {
    const mapped = elicitationToArtifact(request.params);
    const id = await conversationId();
    if (mapped.preface !== undefined) await options.agent.send(id, mapped.preface);
    let outcome: AskOutcome;
    try {
      outcome = await askOwner({
        agent: options.agent,
        conversationId: id,
        content: mapped.content,
        timeoutMs,
        clock,
        signal: extra?.signal,
      });
    } catch (err) {
      if (err instanceof TimeoutError) return { action: 'cancel' };
      throw err;
    }
    return elicitResultOf(mapped, outcome);
  };
}
