/**
 * Typed stream parts (issue #26): the encoding of a streamed reply's plan,
 * steps, tool calls and results, sources and reasoning **inside** the
 * encrypted, agent-signed text of a stream (docs/streaming.md, "Typed parts").
 *
 * A stream whose signed `stream.open` payload carries `"parts": 1`
 * ({@link STREAM_PARTS_VERSION}) is a parts stream. Its text (the
 * concatenation of its deltas, cut anywhere) is read as: plain text, except
 * that {@link STREAM_PART_MARK} (U+001E, the ASCII record separator) opens a
 * part record, a compact JSON object that runs to the next `"\n"` (JSON
 * escapes every newline inside it). A text that itself contains U+001E is
 * sent as a `text` record. A stream without `"parts"` is plain text, as
 * before: every character is text.
 *
 * An old receiver (0.2.0) ignores the `parts` field and shows the text with
 * each record as a line of JSON after an invisible separator; a new receiver
 * shows the text and the parts. A record that does not parse, breaks a limit
 * or contradicts the parts before it is dropped ({@link StreamPartDropReason})
 * and the reader goes on after its `"\n"`: a bad part never loses the rest
 * of the stream.
 *
 * @module
 */

/** The part encoding version, in the signed `stream.open` payload as `parts`. */
export const STREAM_PARTS_VERSION = 1;

/** Opens a part record in the text of a parts stream (U+001E, record separator). */
export const STREAM_PART_MARK = '\u001e';

/** Ends a part record. */
const RECORD_END = '\n';

/** Limits of part records (UTF-16 code units). */
export const STREAM_PART_LIMITS = {
  /** A whole record, mark and newline excluded. */
  RECORD_CHARS: 65_536,
  /** A step, tool call or source id. */
  ID_CHARS: 128,
  /** A tool name. */
  NAME_CHARS: 128,
  /** A step title, a source title or file name. */
  TITLE_CHARS: 1_024,
  /** A step detail, a tool error, a source URL. */
  DETAIL_CHARS: 4_096,
  /** Parts of one stream other than text runs (reasoning runs, steps, tools, sources). */
  PARTS: 4_096,
} as const;

/** The status of a plan step. */
export type StreamStepStatus = 'pending' | 'running' | 'done' | 'failed';

const STEP_STATUSES: readonly StreamStepStatus[] = ['pending', 'running', 'done', 'failed'];

/** A JSON value (a tool's input or output). */
export type StreamJsonValue =
  string | number | boolean | null | readonly StreamJsonValue[] | { readonly [key: string]: StreamJsonValue };

/** One part record as it travels (snake_case, inside the ciphertext). */
export type StreamPartRecord =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'reasoning'; readonly text: string }
  | {
      readonly type: 'step';
      readonly id: string;
      readonly status: StreamStepStatus;
      readonly title?: string;
      readonly detail?: string;
    }
  | {
      readonly type: 'tool-call';
      readonly call_id: string;
      readonly name: string;
      readonly input?: StreamJsonValue;
    }
  | {
      readonly type: 'tool-result';
      readonly call_id: string;
      readonly output?: StreamJsonValue;
      readonly error?: string;
    }
  | {
      readonly type: 'source';
      readonly id: string;
      readonly url?: string;
      readonly title?: string;
      readonly media_type?: string;
      readonly filename?: string;
    };

/** A text or reasoning run of the assembled reply. */
export interface StreamTextPart {
  readonly type: 'text' | 'reasoning';
  readonly text: string;
}

/** A plan step, updated in place by its id. */
export interface StreamStepPart {
  readonly type: 'step';
  readonly id: string;
  /** The title (the id when the agent gave none). */
  readonly title: string;
  /** The latest status. */
  readonly status: StreamStepStatus;
  readonly detail: string | undefined;
}

/** A tool call, and its result once it came (AI SDK tool part states). */
export interface StreamToolPart {
  readonly type: 'tool';
  /** Links the call and its result. */
  readonly callId: string;
  readonly name: string;
  readonly input: StreamJsonValue | undefined;
  /** `input-available` until the result: then `output-available`, or `output-error`. */
  readonly state: 'input-available' | 'output-available' | 'output-error';
  readonly output: StreamJsonValue | undefined;
  readonly error: string | undefined;
}

/** A source or citation. */
export interface StreamSourcePart {
  readonly type: 'source';
  readonly id: string;
  readonly url: string | undefined;
  readonly title: string | undefined;
  readonly mediaType: string | undefined;
  readonly filename: string | undefined;
}

/** One part of an assembled streamed reply, in the order the agent wrote them. */
export type StreamPart = StreamTextPart | StreamStepPart | StreamToolPart | StreamSourcePart;

/** Why a part record was dropped. */
export type StreamPartDropReason =
  /** Not JSON, not an object, a field of the wrong type or over its limit, or cut off by the end. */
  | 'malformed'
  /** Longer than {@link STREAM_PART_LIMITS}.RECORD_CHARS. */
  | 'too_large'
  /** A `type` this version does not know (a newer agent). */
  | 'unknown_type'
  /** A second call with a call id, a result without its call or after its result, a source id seen before. */
  | 'conflict'
  /** More than {@link STREAM_PART_LIMITS}.PARTS parts. */
  | 'too_many';

/** One part created or updated by a chunk of stream text. */
export interface StreamPartChangeEntry {
  /** Its place in the parts (a step or a tool keeps its place when updated). */
  readonly index: number;
  /** The part as it is now. */
  readonly part: StreamPart;
  /** For a text part: the text this chunk appended to it. */
  readonly added: string | undefined;
}

/** What one chunk of stream text changed. */
export interface StreamPartsChange {
  /** The text appended to the reply (text parts only). */
  readonly text: string;
  /**
   * The parts created or updated, in the order written (text runs too: `added` is the text this
   * chunk appended to a text part; a step's latest state, a tool part with its result).
   */
  readonly updated: readonly StreamPartChangeEntry[];
  /** The records dropped, in order. */
  readonly dropped: readonly { readonly reason: StreamPartDropReason; readonly message: string }[];
}

type Verdict =
  | { readonly ok: true; readonly record: StreamPartRecord }
  | { readonly ok: false; readonly reason: StreamPartDropReason; readonly message: string };

function bad(message: string, reason: StreamPartDropReason = 'malformed'): Verdict {
  return { ok: false, reason, message };
}

function str(
  o: Record<string, unknown>,
  key: string,
  max: number,
  required: boolean,
): string | undefined | null {
  const v = o[key];
  if (v === undefined) return required ? null : undefined;
  if (typeof v !== 'string' || v.length > max || (required && v.length === 0)) return null;
  return v;
}

function isJsonValue(v: unknown, depth = 0): v is StreamJsonValue {
  if (depth > 64) return false;
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every((x) => isJsonValue(x, depth + 1));
  // An undefined member is left out by JSON.stringify, as the record is sent.
  if (typeof v === 'object')
    return Object.values(v as object).every((x) => x === undefined || isJsonValue(x, depth + 1));
  return false;
}

/**
 * Checks one decoded record (the object a record's JSON parsed to, or one an
 * agent is about to send): its `type`, every field's type and limit.
 */
export function checkStreamPartRecord(value: unknown): Verdict {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return bad('A part is a JSON object.');
  const o = value as Record<string, unknown>;
  const L = STREAM_PART_LIMITS;
  switch (o['type']) {
    case 'text':
    case 'reasoning': {
      const text = str(o, 'text', L.RECORD_CHARS, false);
      if (typeof text !== 'string') return bad(`A ${o['type']} part needs its text.`);
      return { ok: true, record: { type: o['type'], text } };
    }
    case 'step': {
      const id = str(o, 'id', L.ID_CHARS, true);
      const title = str(o, 'title', L.TITLE_CHARS, false);
      const detail = str(o, 'detail', L.DETAIL_CHARS, false);
      const status = o['status'];
      if (id === null || title === null || detail === null)
        return bad('A step has an id, and a title and detail within their limits.');
      if (!STEP_STATUSES.includes(status as StreamStepStatus))
        return bad('A step status is pending, running, done or failed.');
      return {
        ok: true,
        record: {
          type: 'step',
          id: id!,
          status: status as StreamStepStatus,
          ...(title === undefined ? {} : { title }),
          ...(detail === undefined ? {} : { detail }),
        },
      };
    }
    case 'tool-call': {
      const callId = str(o, 'call_id', L.ID_CHARS, true);
      const name = str(o, 'name', L.NAME_CHARS, true);
      if (callId === null || name === null)
        return bad('A tool call has a call id and a name within their limits.');
      if (o['input'] !== undefined && !isJsonValue(o['input'])) return bad('A tool input is a JSON value.');
      return {
        ok: true,
        record: {
          type: 'tool-call',
          call_id: callId!,
          name: name!,
          ...(o['input'] === undefined ? {} : { input: o['input'] as StreamJsonValue }),
        },
      };
    }
    case 'tool-result': {
      const callId = str(o, 'call_id', L.ID_CHARS, true);
      const error = str(o, 'error', L.DETAIL_CHARS, false);
      if (callId === null || error === null)
        return bad('A tool result has a call id, and an error within its limit.');
      if (o['output'] !== undefined && !isJsonValue(o['output']))
        return bad('A tool output is a JSON value.');
      if (o['output'] !== undefined && error !== undefined)
        return bad('A tool result has an output or an error, not both.');
      return {
        ok: true,
        record: {
          type: 'tool-result',
          call_id: callId!,
          ...(o['output'] === undefined ? {} : { output: o['output'] as StreamJsonValue }),
          ...(error === undefined ? {} : { error }),
        },
      };
    }
    case 'source': {
      const id = str(o, 'id', L.ID_CHARS, true);
      const url = str(o, 'url', L.DETAIL_CHARS, false);
      const title = str(o, 'title', L.TITLE_CHARS, false);
      const mediaType = str(o, 'media_type', L.NAME_CHARS, false);
      const filename = str(o, 'filename', L.TITLE_CHARS, false);
      if (id === null || url === null || title === null || mediaType === null || filename === null)
        return bad('A source has an id, and its fields within their limits.');
      if (url === undefined && title === undefined) return bad('A source has a URL or a title.');
      return {
        ok: true,
        record: {
          type: 'source',
          id: id!,
          ...(url === undefined ? {} : { url }),
          ...(title === undefined ? {} : { title }),
          ...(mediaType === undefined ? {} : { media_type: mediaType }),
          ...(filename === undefined ? {} : { filename }),
        },
      };
    }
    default:
      return bad('A part of a type this version does not know.', 'unknown_type');
  }
}

/**
 * Encodes one record as it goes into the stream text: the mark, compact
 * JSON, a newline; or the problem when the record breaks a rule (the caller
 * reports it).
 */
export function encodeStreamPart(record: StreamPartRecord): { text: string } | { problem: string } {
  const verdict = checkStreamPartRecord(record);
  if (!verdict.ok) return { problem: verdict.message };
  const json = JSON.stringify(verdict.record);
  if (json.length > STREAM_PART_LIMITS.RECORD_CHARS)
    return { problem: `A part is at most ${STREAM_PART_LIMITS.RECORD_CHARS} characters of JSON.` };
  return { text: STREAM_PART_MARK + json + RECORD_END };
}

/** Encodes a text write of a parts stream: as is, or as a `text` record when it contains the mark. */
export function encodeStreamText(text: string): string {
  if (!text.includes(STREAM_PART_MARK)) return text;
  const out: string[] = [];
  // 8 192 characters escape to at most 6 × as many: a record stays under the limit.
  for (let i = 0; i < text.length; i += 8_192) {
    const piece = JSON.stringify({ type: 'text', text: text.slice(i, i + 8_192) });
    out.push(STREAM_PART_MARK + piece + RECORD_END);
  }
  return out.join('');
}

/**
 * Reads the text of a parts stream chunk by chunk (cut anywhere) and
 * assembles the reply: text and reasoning runs, steps updated in place by
 * id, tool calls joined by their results, sources. Total: any input gives a
 * change, never an exception.
 */
export class StreamPartsReader {
  readonly #parts: StreamPart[] = [];
  readonly #steps = new Map<string, number>();
  readonly #tools = new Map<string, number>();
  readonly #sources = new Set<string>();
  #mode: 'text' | 'record' | 'skip' = 'text';
  #record: string[] = [];
  #recordChars = 0;
  #text = '';

  /** The reply's text so far (text parts only). */
  get text(): string {
    return this.#text;
  }

  /** The parts so far, in order (a snapshot). */
  get parts(): readonly StreamPart[] {
    return this.#parts.slice();
  }

  /** Takes the next chunk of the stream's text. */
  push(chunk: string): StreamPartsChange {
    const change = {
      text: '',
      updated: [] as StreamPartChangeEntry[],
      dropped: [] as { reason: StreamPartDropReason; message: string }[],
    };
    let at = 0;
    while (at < chunk.length) {
      if (this.#mode === 'text') {
        const mark = chunk.indexOf(STREAM_PART_MARK, at);
        const end = mark === -1 ? chunk.length : mark;
        if (end > at) this.#appendText('text', chunk.slice(at, end), change);
        if (mark === -1) break;
        this.#mode = 'record';
        this.#record = [];
        this.#recordChars = 0;
        at = mark + 1;
        continue;
      }
      const nl = chunk.indexOf(RECORD_END, at);
      const end = nl === -1 ? chunk.length : nl;
      if (this.#mode === 'record') {
        this.#recordChars += end - at;
        if (this.#recordChars > STREAM_PART_LIMITS.RECORD_CHARS) {
          this.#mode = 'skip';
          this.#record = [];
          change.dropped.push({ reason: 'too_large', message: 'A part record is over the size limit.' });
        } else this.#record.push(chunk.slice(at, end));
      }
      if (nl === -1) break;
      if (this.#mode === 'record') this.#take(this.#record.join(''), change);
      this.#mode = 'text';
      this.#record = [];
      at = nl + 1;
    }
    return change;
  }

  /** The stream ended: a record cut off by the end is dropped. */
  finish(): StreamPartsChange {
    const dropped: { reason: StreamPartDropReason; message: string }[] = [];
    if (this.#mode === 'record')
      dropped.push({ reason: 'malformed', message: 'The stream ended inside a part record.' });
    this.#mode = 'text';
    this.#record = [];
    return { text: '', updated: [], dropped };
  }

  #appendText(
    type: 'text' | 'reasoning',
    text: string,
    change: {
      text: string;
      updated: StreamPartChangeEntry[];
      dropped: { reason: StreamPartDropReason; message: string }[];
    },
  ): void {
    if (text.length === 0) return;
    if (type === 'text') {
      this.#text += text;
      change.text += text;
    }
    const last = this.#parts.length - 1;
    const prev = this.#parts[last];
    const added = type === 'text' ? text : undefined;
    if (prev !== undefined && prev.type === type) {
      const part = { type, text: (prev as StreamTextPart).text + text };
      this.#parts[last] = part;
      this.#update(change, last, part, added);
      return;
    }
    this.#add(change, { type, text }, added);
  }

  #update(
    change: { updated: StreamPartChangeEntry[] },
    index: number,
    part: StreamPart,
    added?: string,
  ): void {
    const prev = change.updated[change.updated.length - 1];
    if (prev !== undefined && prev.index === index) {
      const joined = prev.added === undefined ? added : prev.added + (added ?? '');
      change.updated[change.updated.length - 1] = { index, part, added: joined };
    } else change.updated.push({ index, part, added });
  }

  #add(
    change: {
      updated: StreamPartChangeEntry[];
      dropped: { reason: StreamPartDropReason; message: string }[];
    },
    part: StreamPart,
    added?: string,
  ): number {
    // Text runs are not counted: consecutive text joins one run, so there is at most one more than other parts.
    if (part.type !== 'text' && this.#parts.length >= STREAM_PART_LIMITS.PARTS) {
      change.dropped.push({
        reason: 'too_many',
        message: `A stream holds at most ${STREAM_PART_LIMITS.PARTS} parts.`,
      });
      return -1;
    }
    this.#parts.push(part);
    this.#update(change, this.#parts.length - 1, part, added);
    return this.#parts.length - 1;
  }

  #take(
    json: string,
    change: {
      text: string;
      updated: StreamPartChangeEntry[];
      dropped: { reason: StreamPartDropReason; message: string }[];
    },
  ): void {
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch {
      change.dropped.push({ reason: 'malformed', message: 'A part record is not JSON.' });
      return;
    }
    const verdict = checkStreamPartRecord(value);
    if (!verdict.ok) {
      change.dropped.push({ reason: verdict.reason, message: verdict.message });
      return;
    }
    const r = verdict.record;
    switch (r.type) {
      case 'text':
      case 'reasoning':
        return this.#appendText(r.type, r.text, change);
      case 'step': {
        const index = this.#steps.get(r.id);
        if (index === undefined) {
          const at = this.#add(change, {
            type: 'step',
            id: r.id,
            title: r.title ?? r.id,
            status: r.status,
            detail: r.detail,
          });
          if (at >= 0) this.#steps.set(r.id, at);
          return;
        }
        const prev = this.#parts[index] as StreamStepPart;
        const part: StreamStepPart = {
          type: 'step',
          id: r.id,
          title: r.title ?? prev.title,
          status: r.status,
          detail: r.detail ?? prev.detail,
        };
        this.#parts[index] = part;
        return this.#update(change, index, part);
      }
      case 'tool-call': {
        if (this.#tools.has(r.call_id)) {
          change.dropped.push({ reason: 'conflict', message: 'A second tool call with the same call id.' });
          return;
        }
        const at = this.#add(change, {
          type: 'tool',
          callId: r.call_id,
          name: r.name,
          input: r.input,
          state: 'input-available',
          output: undefined,
          error: undefined,
        });
        if (at >= 0) this.#tools.set(r.call_id, at);
        return;
      }
      case 'tool-result': {
        const index = this.#tools.get(r.call_id);
        const prev = index === undefined ? undefined : (this.#parts[index] as StreamToolPart);
        if (index === undefined || prev === undefined || prev.state !== 'input-available') {
          change.dropped.push({
            reason: 'conflict',
            message: 'A tool result without its call, or a second one.',
          });
          return;
        }
        const part: StreamToolPart = {
          ...prev,
          state: r.error === undefined ? 'output-available' : 'output-error',
          output: r.output,
          error: r.error,
        };
        this.#parts[index] = part;
        return this.#update(change, index, part);
      }
      case 'source': {
        if (this.#sources.has(r.id)) {
          change.dropped.push({ reason: 'conflict', message: 'A source id seen before.' });
          return;
        }
        if (
          this.#add(change, {
            type: 'source',
            id: r.id,
            url: r.url,
            title: r.title,
            mediaType: r.media_type,
            filename: r.filename,
          }) >= 0
        )
          this.#sources.add(r.id);
        return;
      }
    }
  }
}
