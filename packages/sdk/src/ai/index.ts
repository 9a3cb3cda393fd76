/**
 * `agent-messaging-sdk/ai`: the AI SDK (`ai` 7.x) bridge. A `streamText`
 * result streamed into an end-to-end encrypted reply ({@link pipeToReply}),
 * a conversation's messages as `ModelMessage[]` ({@link toModelMessages}),
 * and tool approval asked of the human through a confirm artifact
 * ({@link runWithApprovals}). `ai` is an optional peer dependency: this entry
 * imports only its types, and the root entry never imports this one.
 *
 * @example
 * ```ts
 * import { streamText } from 'ai';
 * import { pipeToReply, toModelMessages } from 'agent-messaging-sdk/ai';
 *
 * agent.filter(isMessage, async (ctx) => {
 *   const result = streamText({ model, messages: toModelMessages(ctx.messages, { agentId: ctx.agentId }), abortSignal: ctx.signal });
 *   await pipeToReply(ctx, result);
 * });
 * ```
 *
 * @module ai
 */
import type {
  FilePart,
  FinishReason,
  LanguageModelUsage,
  ModelMessage,
  TextStreamPart,
  ToolApprovalRequestOutput,
  ToolApprovalResponse,
  ToolSet,
} from 'ai';
import type {
  Agent,
  Context,
  FilePayload,
  IncomingMessage,
  MessagePayload,
  StreamWriter,
} from 'agent-messaging-sdk';

/**
 * What {@link pipeToReply} reads of a `streamText` result (a `StreamTextResult`
 * fits): its `fullStream`, and its `responseMessages` to continue with.
 */
export interface ModelStreamResult<TOOLS extends ToolSet = ToolSet> {
  /** Every part of the generation, in order. */
  readonly fullStream: AsyncIterable<TextStreamPart<TOOLS>>;
  /** The response messages of every step (assistant and tool messages), once the stream is done. */
  readonly responseMessages: PromiseLike<readonly ModelMessage[]>;
}

/** Options of {@link pipeToReply}. */
export interface PipeToReplyOptions {
  /**
   * Stops reading when it aborts: the stream is ended `stopped` and the result says `stopped`.
   * Pass the same signal to `streamText` as `abortSignal`: that is what cancels the model call.
   * @defaultValue `ctx.signal` when a context is given
   */
  readonly signal?: AbortSignal;
  /** End the stream when the model is done; `false` keeps it open for a next call. @defaultValue true */
  readonly end?: boolean;
  /**
   * The title of each model step (`start-step` … `finish-step`), shown as a plan step
   * with the id `step-<n>`; `false` sends no steps. @defaultValue `(n) => \`Step ${n}\``
   */
  readonly stepTitle?: ((n: number) => string) | false;
  /** Steps counted before this call (to number the steps of a next call on). @defaultValue 0 */
  readonly stepsBefore?: number;
}

/** What {@link pipeToReply} sent. */
export interface PipedReply<TOOLS extends ToolSet = ToolSet> {
  /** The writer streamed into (ended, aborted, or open when `end: false`). */
  readonly stream: StreamWriter;
  /** The answer's text, as sent. */
  readonly text: string;
  /** The reasoning text, as sent. */
  readonly reasoning: string;
  /** Model steps started (counted on from `stepsBefore`). */
  readonly steps: number;
  /** Why the model finished; undefined when stopped. */
  readonly finishReason: FinishReason | undefined;
  /** The total usage the model reported; undefined when stopped. */
  readonly usage: LanguageModelUsage | undefined;
  /** True when the signal aborted (the human stopped the turn): the stream ended `stopped`. */
  readonly stopped: boolean;
  /** Tool calls that wait for the human's approval (`tool-approval-request`, not automatic). */
  readonly approvals: readonly ToolApprovalRequestOutput<TOOLS>[];
}

/** The brand {@link isModelStreamError} recognises across copies of this entry. */
const MODEL_STREAM_ERROR = Symbol.for('agent-messaging-sdk.ai.ModelStreamError');

/**
 * The model call failed (an `error` part in the stream, or the stream threw)
 * while {@link pipeToReply} streamed it. The reply stream was ended first: the
 * human got `streamError` with `reason: 'aborted'`, `detail: 'the model failed'`.
 * The AI SDK's error (e.g. an `APICallError`) is the `cause`; its text is not
 * sent to the human.
 */
export class ModelStreamError extends Error {
  override readonly name: string = 'ModelStreamError';
  /** The code of this error. */
  readonly code = 'MODEL_STREAM_FAILED' as const;
  /** The reply stream that was ended. */
  readonly streamId: string;
  /** The text sent before the failure. */
  readonly text: string;

  constructor(options: { message: string; cause: unknown; streamId: string; text: string }) {
    super(options.message, { cause: options.cause });
    this.streamId = options.streamId;
    this.text = options.text;
    Object.defineProperty(this, MODEL_STREAM_ERROR, { value: true });
  }
}

/** True when `err` is a {@link ModelStreamError} (from any copy of this entry). */
export function isModelStreamError(err: unknown): err is ModelStreamError {
  return typeof err === 'object' && err !== null && MODEL_STREAM_ERROR in err;
}

/** The reason a stream ends with when the model failed (sealed; the human sees it). */
const MODEL_FAILED = 'the model failed';
/** The reason a stream ends with when a part could not be sent. */
const REPLY_FAILED = 'the reply failed';
/** The reason a stream ends with when the signal aborted, as the Agent's stop does. */
const STOPPED = 'stopped';

/** A value as JSON (what a stream part may carry): `undefined` → null, other non-JSON dropped by JSON. */
function asJson(value: unknown): unknown {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as unknown;
  } catch {
    return String(value);
  }
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : typeof error === 'string' ? error : 'the tool failed';
  return text.slice(0, 4_096);
}

function isContext(target: Context | StreamWriter): target is Context {
  return 'replyStream' in target;
}

/** Resolves when `signal` aborts; never rejects. */
function abortedOf(signal: AbortSignal | undefined): { promise: Promise<'aborted'>; dispose(): void } {
  if (signal === undefined) return { promise: new Promise(() => undefined), dispose: () => undefined };
  if (signal.aborted) return { promise: Promise.resolve('aborted'), dispose: () => undefined };
  let listener: (() => void) | undefined;
  const promise = new Promise<'aborted'>((resolve) => {
    listener = () => resolve('aborted');
    signal.addEventListener('abort', listener, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener('abort', listener!) };
}

/**
 * Streams a `streamText` result into a reply, as `toUIMessageStreamResponse`
 * streams it to a browser: text deltas → text, reasoning → `reasoning`, each
 * model step → a plan step (`running`, then `done`), tool calls and their
 * results or errors → `toolCall` / `toolResult`, sources → `source`. Every part
 * travels sealed inside the end-to-end encrypted stream.
 *
 * `target` is the handler's context (a reply stream is opened) or a writer
 * already open. When the signal aborts (the human pressed stop: `ctx.signal`),
 * reading stops at once, the stream ends `stopped` and the result says
 * `stopped`; pass the same signal to `streamText({ abortSignal })` so the model
 * call itself is cancelled.
 *
 * @returns What was sent: text, reasoning, finish reason, usage, pending approvals.
 * @throws {@link ModelStreamError} when the model fails (the stream was ended first);
 * the writer's errors as they are (a `StreamError` when the service ended the stream, a
 * `ValidationError` for a part over a limit), after ending the stream ("the reply failed").
 * @example
 * ```ts
 * const result = streamText({ model, messages, abortSignal: ctx.signal });
 * const { text, stopped } = await pipeToReply(ctx, result);
 * ```
 */
export async function pipeToReply<TOOLS extends ToolSet>(
  target: Context | StreamWriter,
  result: ModelStreamResult<TOOLS>,
  options: PipeToReplyOptions = {},
): Promise<PipedReply<TOOLS>> {
  const signal = options.signal ?? (isContext(target) ? target.signal : undefined);
  const stream = isContext(target) ? await target.replyStream() : target;
  const stepTitle = options.stepTitle === undefined ? (n: number) => `Step ${n}` : options.stepTitle;
  let steps = options.stepsBefore ?? 0;
  let text = '';
  let reasoning = '';
  let finishReason: FinishReason | undefined;
  let usage: LanguageModelUsage | undefined;
  const approvals: ToolApprovalRequestOutput<TOOLS>[] = [];
  const reply = (stopped: boolean): PipedReply<TOOLS> => ({
    stream,
    text,
    reasoning,
    steps,
    finishReason: stopped ? undefined : finishReason,
    usage: stopped ? undefined : usage,
    stopped,
    approvals,
  });
  const stop = async (): Promise<PipedReply<TOOLS>> => {
    await stream.abort(STOPPED).catch(() => undefined); // the Agent may have aborted it already
    return reply(true);
  };
  const fail = async (cause: unknown): Promise<never> => {
    await stream.abort(MODEL_FAILED).catch(() => undefined);
    throw new ModelStreamError({
      message: `The model failed while streaming the reply: ${errorText(cause)}`,
      cause,
      streamId: stream.streamId,
      text,
    });
  };

  async function send(part: TextStreamPart<TOOLS>): Promise<void> {
    switch (part.type) {
      case 'text-delta':
        text += part.text;
        return stream.write(part.text);
      case 'reasoning-delta':
        reasoning += part.text;
        return part.text.length === 0 ? undefined : stream.reasoning(part.text);
      case 'start-step':
        steps += 1;
        if (stepTitle === false) return;
        return stream.step({ id: `step-${steps}`, title: stepTitle(steps), status: 'running' });
      case 'finish-step':
        if (stepTitle === false) return;
        return stream.step({ id: `step-${steps}`, status: 'done' });
      case 'tool-call':
        return stream.toolCall({ callId: part.toolCallId, name: part.toolName, input: asJson(part.input) });
      case 'tool-result':
        if (part.preliminary === true) return;
        return stream.toolResult({ callId: part.toolCallId, output: asJson(part.output) });
      case 'tool-error':
        return stream.toolResult({
          callId: part.toolCallId,
          error: errorText(part.error) || 'the tool failed',
        });
      case 'tool-output-denied':
        return stream.toolResult({ callId: part.toolCallId, error: 'denied' });
      case 'tool-approval-request':
        if (part.isAutomatic !== true) approvals.push(part);
        return;
      case 'source':
        return part.sourceType === 'url'
          ? stream.source({
              id: part.id,
              url: part.url,
              ...(part.title === undefined ? {} : { title: part.title }),
            })
          : stream.source({
              id: part.id,
              title: part.title,
              mediaType: part.mediaType,
              ...(part.filename === undefined ? {} : { filename: part.filename }),
            });
      case 'finish':
        finishReason = part.finishReason;
        usage = part.totalUsage;
        return;
      default:
        return; // text-start/end, tool input deltas, files, raw, ping…: nothing to show
    }
  }

  const aborted = abortedOf(signal);
  const isStopped = (): boolean => signal?.aborted === true;
  const iterator = result.fullStream[Symbol.asyncIterator]();
  try {
    for (;;) {
      if (isStopped()) break;
      let next: IteratorResult<TextStreamPart<TOOLS>> | 'aborted';
      try {
        next = await Promise.race([iterator.next(), aborted.promise]);
      } catch (err) {
        if (isStopped()) break;
        return await fail(err);
      }
      if (next === 'aborted') break;
      if (next.done === true) {
        if (options.end !== false) await stream.end();
        return reply(false);
      }
      const part = next.value;
      if (part.type === 'abort') break;
      if (part.type === 'error') return await fail(part.error);
      try {
        await send(part);
      } catch (err) {
        if (isStopped()) break; // the Agent aborted the stream on the stop
        // A part the stream refused (a ValidationError: a tool name over 128 characters…) or the
        // service ended the stream (StreamError): the reply ends here, the error goes to the caller.
        await stream.abort(REPLY_FAILED).catch(() => undefined);
        throw err;
      }
    }
    // Stopped: cancel the reading (the model call itself stops through its abortSignal).
    void Promise.resolve(iterator.return?.()).catch(() => undefined);
    return await stop();
  } catch (err) {
    void Promise.resolve(iterator.return?.()).catch(() => undefined);
    throw err;
  } finally {
    aborted.dispose();
  }
}

/** One entry of a history: a received message (`ctx.messages`), or what the agent said itself. */
export type HistoryEntry =
  | Pick<IncomingMessage, 'senderId' | 'payload'>
  | { readonly role: 'user' | 'assistant'; readonly text: string };

/** Options of {@link toModelMessages}. */
export interface ToModelMessagesOptions {
  /** This agent's id: its own messages become `assistant` messages. @defaultValue none (all are `user`) */
  readonly agentId?: string;
  /** Prefix each user message with `<senderId>: ` (for groups, where several humans talk). @defaultValue false */
  readonly names?: boolean;
}

/** A message's payload as text the model can read; undefined for what it should not see (reactions). */
function payloadText(payload: MessagePayload): string | undefined {
  switch (payload.type) {
    case 'text':
      return payload.text;
    case 'file':
      return `[file: ${payload.name} (${payload.content_type}, ${payload.size} bytes)]`;
    case 'artifact': {
      const content = (payload as { content?: { kind?: unknown; title?: unknown } }).content;
      return `[asked the human (${String(content?.kind ?? 'artifact')}): ${String(content?.title ?? '')}]`;
    }
    case 'artifact_response': {
      const p = payload as { status?: unknown; denied_reason?: unknown };
      return `[answered: ${String(p.status ?? 'unknown')}${p.denied_reason === undefined ? '' : ` (${String(p.denied_reason)})`}]`;
    }
    case 'forwarded': {
      const inner = (payload as { original?: { payload?: MessagePayload } }).original?.payload;
      const text = inner === undefined ? undefined : payloadText(inner);
      return text === undefined ? '[forwarded message]' : `[forwarded] ${text}`;
    }
    case 'reaction':
      return undefined;
    default:
      return undefined;
  }
}

/**
 * How {@link toModelMessages} gives files as file parts: each `file` message of
 * the history is downloaded (the service's ciphertext, decrypted and checked by
 * the SDK: the hash, every chunk, the size) and becomes an AI SDK `FilePart`.
 */
export interface ModelFileOptions {
  /** What downloads the files: `agent.files` (a UserClient's `files` fits too). */
  readonly from: Pick<Agent['files'], 'download'>;
  /**
   * A file larger than this, by its signed size, is not downloaded and stays one line of text;
   * the bytes read are counted too, and a download that passes it is stopped.
   * @defaultValue 5 MiB (5 242 880 bytes)
   */
  readonly maxBytes?: number;
  /** Which media types become file parts; the others stay one line of text. @defaultValue every type */
  readonly mediaTypes?: (mediaType: string) => boolean;
  /** Aborts the downloads; its reason is rethrown. */
  readonly signal?: AbortSignal;
}

/** Options of {@link toModelMessages} with files as file parts. */
export interface ToModelMessagesWithFilesOptions extends ToModelMessagesOptions {
  /** Download files and give them as file parts (see {@link ModelFileOptions}). */
  readonly files: ModelFileOptions;
}

/** The default size cap of a file given as a file part: 5 MiB. */
const MAX_FILE_PART_BYTES = 5 * 1024 * 1024;

/** One entry as a model message, files as text; undefined for what the model should not see. */
function messageOf(entry: HistoryEntry, options: ToModelMessagesOptions): ModelMessage | undefined {
  if ('role' in entry) return { role: entry.role, content: entry.text };
  const text = payloadText(entry.payload);
  if (text === undefined) return undefined;
  if (options.agentId !== undefined && entry.senderId === options.agentId) {
    return { role: 'assistant', content: text };
  }
  return { role: 'user', content: options.names === true ? `${entry.senderId}: ${text}` : text };
}

/**
 * The bytes of a file, downloaded and checked; undefined when more than `maxBytes` arrive
 * (the download is stopped). A failed check rejects with the SDK's `FileIntegrityError`.
 */
async function fileBytes(
  file: FilePayload,
  from: ModelFileOptions['from'],
  maxBytes: number,
  signal: AbortSignal | undefined,
): Promise<Uint8Array | undefined> {
  const stop = new AbortController();
  const onAbort = (): void => stop.abort(signal?.reason);
  if (signal?.aborted === true) onAbort();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const download = await from.download(file, { signal: stop.signal });
    const pieces: Uint8Array[] = [];
    let total = 0;
    for await (const piece of download.stream()) {
      total += piece.byteLength;
      if (total > maxBytes) {
        stop.abort(new Error('over the size cap'));
        return undefined;
      }
      pieces.push(piece);
    }
    const bytes = new Uint8Array(total);
    let at = 0;
    for (const piece of pieces) {
      bytes.set(piece, at);
      at += piece.byteLength;
    }
    return bytes;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

async function messageWithFile(
  entry: HistoryEntry,
  options: ToModelMessagesOptions,
  files: ModelFileOptions,
): Promise<ModelMessage | undefined> {
  if ('role' in entry || entry.payload.type !== 'file') return messageOf(entry, options);
  const file = entry.payload as FilePayload;
  const maxBytes = files.maxBytes ?? MAX_FILE_PART_BYTES;
  if (file.size > maxBytes || (files.mediaTypes !== undefined && !files.mediaTypes(file.content_type))) {
    return messageOf(entry, options);
  }
  const data = await fileBytes(file, files.from, maxBytes, files.signal);
  if (data === undefined) return messageOf(entry, options);
  const part: FilePart = { type: 'file', data, mediaType: file.content_type, filename: file.name };
  if (options.agentId !== undefined && entry.senderId === options.agentId) {
    return { role: 'assistant', content: [part] };
  }
  return {
    role: 'user',
    content: options.names === true ? [{ type: 'text', text: `${entry.senderId}:` }, part] : [part],
  };
}

/**
 * A conversation's history as the AI SDK's `ModelMessage[]`, oldest first:
 * messages from this agent (`options.agentId`) are `assistant` messages, the
 * others `user` messages. Text is text; a file becomes a line naming it (its
 * bytes are encrypted and never downloaded silently); an artifact or its
 * answer becomes a one-line summary; reactions are left out.
 *
 * With `files` (`{ from: agent.files, maxBytes? }`) it resolves instead, and
 * each file within the cap becomes an AI SDK file part (`data`, `mediaType`,
 * `filename`): downloaded, decrypted and checked by the SDK, one after the other.
 *
 * The service keeps ciphertext for delivery only: the history an agent passes
 * is its own memory (`ctx.messages` for the turn, plus what it kept).
 *
 * @throws `FileIntegrityError` (with `files`) when a download fails a check; the download's other
 * errors as they are (a `ServiceError` for a file the service no longer has, the signal's reason).
 * @example
 * ```ts
 * const messages = [...kept, ...toModelMessages(ctx.messages, { agentId: ctx.agentId })];
 * const withFiles = await toModelMessages(ctx.messages, { agentId: ctx.agentId, files: { from: agent.files } });
 * ```
 */
export function toModelMessages(
  history: readonly HistoryEntry[],
  options?: ToModelMessagesOptions,
): ModelMessage[];
export function toModelMessages(
  history: readonly HistoryEntry[],
  options: ToModelMessagesWithFilesOptions,
): Promise<ModelMessage[]>;
export function toModelMessages(
  history: readonly HistoryEntry[],
  options: ToModelMessagesOptions | ToModelMessagesWithFilesOptions = {},
): ModelMessage[] | Promise<ModelMessage[]> {
  if ('files' in options && options.files !== undefined) {
    const { files } = options;
    return (async () => {
      const out: ModelMessage[] = [];
      for (const entry of history) {
        const message = await messageWithFile(entry, options, files);
        if (message !== undefined) out.push(message);
      }
      return out;
    })();
  }
  const out: ModelMessage[] = [];
  for (const entry of history) {
    const message = messageOf(entry, options);
    if (message !== undefined) out.push(message);
  }
  return out;
}

/** What {@link runWithApprovals} asks the human, for one tool call. */
export interface ApprovalQuestion {
  /** The confirm artifact's title. */
  readonly title: string;
  /** Its body (the tool's input, by default). */
  readonly body?: string;
}

/** Options of {@link runWithApprovals}. */
export interface RunWithApprovalsOptions<TOOLS extends ToolSet = ToolSet> {
  /** The agent (its artifacts ask the human; its clock times the wait). */
  readonly agent: Pick<Agent, 'artifacts'>;
  /** The messages of the first call (e.g. `toModelMessages(ctx.messages, …)`). */
  readonly messages: readonly ModelMessage[];
  /**
   * Starts one model call with these messages: `streamText({ …, messages, abortSignal: ctx.signal })`
   * with `toolApproval` set for the tools the human approves.
   */
  readonly call: (messages: ModelMessage[]) => ModelStreamResult<TOOLS>;
  /**
   * How long to wait for the human's answer, on the agent's clock; then the call is denied
   * (reason "no answer in time"). @defaultValue 600 000 (10 minutes)
   */
  readonly approvalTimeoutMs?: number;
  /** The question for a tool call. @defaultValue `Run <toolName>?` with the input as JSON */
  readonly question?: (request: ToolApprovalRequestOutput<TOOLS>) => ApprovalQuestion;
  /** At most this many model calls (each approval round is one more). @defaultValue 8 */
  readonly maxCalls?: number;
  /** As in {@link PipeToReplyOptions}. */
  readonly stepTitle?: PipeToReplyOptions['stepTitle'];
}

/** What {@link runWithApprovals} did. */
export interface ApprovedRun<TOOLS extends ToolSet = ToolSet> extends PipedReply<TOOLS> {
  /** The text of every call, as sent. */
  readonly text: string;
  /** The messages of the whole run: the first ones, the responses and the approval answers (keep them as history). */
  readonly messages: ModelMessage[];
  /** The human's decisions, in order. */
  readonly decisions: readonly ToolApprovalResponse[];
}

function defaultQuestion(request: { toolCall: { toolName: string; input: unknown } }): ApprovalQuestion {
  return {
    title: `Run ${request.toolCall.toolName}?`,
    body: JSON.stringify(asJson(request.toolCall.input)).slice(0, 4_096),
  };
}

/**
 * Runs a model call whose tools need the human's approval (AI SDK 7
 * `toolApproval: { tool: 'user-approval' }`), streaming every call into one
 * reply. Each `tool-approval-request` becomes a `confirm` artifact sealed to
 * the human (and a plan step `pending`); the human's signed answer becomes the
 * `tool-approval-response` the next call gets, so the AI SDK runs the tool (or
 * tells the model it was denied) and the model goes on. No answer within
 * `approvalTimeoutMs` (on the agent's clock) denies the call; a stop
 * (`ctx.signal`) ends the wait and the stream `stopped`. A question whose
 * answer would be ignored (the stop, the timeout, a failure) is closed first:
 * a last revision "No longer needed: …" living 1 s, so the human cannot answer it.
 *
 * @throws {@link ModelStreamError} when a model call fails; as {@link pipeToReply} otherwise.
 * @example
 * ```ts
 * const run = await runWithApprovals(ctx, {
 *   agent,
 *   messages: toModelMessages(ctx.messages, { agentId: ctx.agentId }),
 *   call: (messages) => streamText({ model, tools, toolApproval: { weather: 'user-approval' }, messages, abortSignal: ctx.signal }),
 * });
 * ```
 */
export async function runWithApprovals<TOOLS extends ToolSet>(
  ctx: Context,
  options: RunWithApprovalsOptions<TOOLS>,
): Promise<ApprovedRun<TOOLS>> {
  const { signal } = ctx;
  const messages = [...options.messages];
  const decisions: ToolApprovalResponse[] = [];
  const maxCalls = options.maxCalls ?? 8;
  const timeoutMs = options.approvalTimeoutMs ?? 600_000;
  const question = options.question ?? defaultQuestion;
  const stream = await ctx.replyStream();
  let steps = 0;
  let text = '';
  let reasoning = '';
  try {
    for (let calls = 1; ; calls += 1) {
      const last = calls >= maxCalls;
      const result = options.call(messages);
      const piped = await pipeToReply(stream, result, {
        signal,
        end: false,
        stepsBefore: steps,
        ...(options.stepTitle === undefined ? {} : { stepTitle: options.stepTitle }),
      });
      steps = piped.steps;
      text += piped.text;
      reasoning += piped.reasoning;
      const done = (stopped: boolean): ApprovedRun<TOOLS> => ({
        ...piped,
        text,
        reasoning,
        stopped,
        messages,
        decisions,
      });
      if (piped.stopped) return done(true);
      messages.push(...(await result.responseMessages));
      if (piped.approvals.length === 0 || last) {
        await stream.end();
        return done(false);
      }
      const answers: ToolApprovalResponse[] = [];
      for (const request of piped.approvals) {
        const answer = await ask(ctx, options.agent, request, question(request), timeoutMs);
        if (answer === 'stopped') {
          await stream.abort(STOPPED).catch(() => undefined);
          return done(true);
        }
        answers.push(answer);
      }
      decisions.push(...answers);
      messages.push({ role: 'tool', content: answers });
    }
  } catch (err) {
    // A model error was already ended by pipeToReply; anything else (an artifact the service refused,
    // a failed call) ends the reply here before it goes to the caller.
    if (!isModelStreamError(err))
      await stream.abort(signal.aborted ? STOPPED : REPLY_FAILED).catch(() => undefined);
    throw err;
  }
}

/** What a closed question says, by why nobody needs its answer any more. */
const CLOSED_BODY = {
  stopped: 'The turn was stopped: this question no longer needs an answer.',
  timeout: 'No answer came in time: the tool call was denied. This question no longer needs an answer.',
  failed: 'The turn failed: this question no longer needs an answer.',
} as const;

/**
 * Asks the human about one tool call: a confirm artifact, its answer as a `tool-approval-response`.
 * A question left unanswered (the turn stopped, the wait timed out) is closed before this returns.
 */
async function ask<TOOLS extends ToolSet>(
  ctx: Context,
  agent: Pick<Agent, 'artifacts'>,
  request: ToolApprovalRequestOutput<TOOLS>,
  q: ApprovalQuestion,
  timeoutMs: number,
): Promise<ToolApprovalResponse | 'stopped'> {
  const artifact = await agent.artifacts.send(ctx.event.conversationId, {
    content: { kind: 'confirm', title: q.title, ...(q.body === undefined ? {} : { body: q.body }) },
    ttlMs: Math.max(1_000, Math.min(timeoutMs, 7 * 24 * 3_600_000)),
  });
  const aborted = abortedOf(ctx.signal);
  try {
    const outcome = await Promise.race([
      artifact.response({ timeoutMs }).catch((err: unknown) => {
        if (err instanceof Error && err.name === 'TimeoutError') return 'timeout' as const;
        throw err;
      }),
      aborted.promise,
    ]);
    if (outcome === 'aborted') {
      await artifact.withdraw(CLOSED_BODY.stopped);
      return 'stopped';
    }
    const base = { type: 'tool-approval-response', approvalId: request.approvalId } as const;
    if (outcome === 'timeout') {
      await artifact.withdraw(CLOSED_BODY.timeout);
      return { ...base, approved: false, reason: 'no answer in time' };
    }
    if (outcome.status === 'approved') return { ...base, approved: true };
    if (outcome.status === 'denied')
      return { ...base, approved: false, reason: `denied (${outcome.reason})` };
    return { ...base, approved: false, reason: 'the question expired' };
  } catch (err) {
    await artifact.withdraw(CLOSED_BODY.failed);
    throw err;
  } finally {
    aborted.dispose();
  }
}
