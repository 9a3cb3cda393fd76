/**
 * The context a composer middleware receives (see `composer.ts`): the typed
 * event, a `reply` into its conversation, and what `command` and `hears`
 * matched. One context per event, shared by the middleware chain.
 *
 * @module
 */
import type { FilePayload } from '../core/protocol/file-payload.js';
import { replyStreamInto, type TextChunkSource } from './streams/reply-stream.js';
import { ConfigurationError } from '../core/errors/configuration-error.js';
import type { MessagePayload } from '../core/protocol/payloads.js';
import { ValidationError } from '../core/errors/validation-error.js';
import type { FileTransfer, SentFile } from '../files/file-transfer.js';
import type { FileDownload, FileDownloadOptions } from '../files/download.js';
import type { FileSource } from '../files/sources.js';
import type { FileUploadOptions } from '../files/upload.js';
import type { AnyAgentEvent, IncomingMessage, SendResult } from './events.js';
import type { SendOptions } from '../messaging/sender.js';
import type { StreamSummary, StreamWriter, StreamWriterOptions } from './streams/writer.js';

/** A `/command args` found in a message text. */
export interface CommandMatch {
  /** The command without its slash, e.g. `start`. */
  readonly name: string;
  /** What follows the command, trimmed (`''` when nothing). */
  readonly args: string;
}

/** What a middleware receives for an event `Ev`. */
export interface Context<Ev extends AnyAgentEvent = AnyAgentEvent> {
  /** The typed event, exactly as an `agent.on()` listener receives it. */
  readonly event: Ev;
  /** `event.type`. */
  readonly type: Ev['type'];
  /** The agent's id. */
  readonly agentId: string;
  /** The text of a `message.new` text payload; undefined otherwise. */
  readonly text: string | undefined;
  /** Set by `hears` for the middleware it runs. */
  match: RegExpMatchArray | undefined;
  /** Set by `command` for the middleware it runs. */
  command: CommandMatch | undefined;
  /** Room for middleware to pass values down the chain. */
  readonly state: Record<string, unknown>;
  /**
   * Aborts when the turn ends early: the human stopped it (`user.stopTurn`),
   * a newer message superseded it (strategy `latest`), or `close()` passed
   * its deadline. Pass it to your model call (`fetch`, LLM SDKs) to cancel
   * it; reply streams opened in the turn are then aborted for you (reason
   * `stopped`, `superseded` or `shutdown`). For an event outside a turn it
   * aborts only at the shutdown deadline.
   */
  readonly signal: AbortSignal;
  /**
   * The messages of this turn, oldest first: the one message, or several
   * under the `debounce` and `latest` strategies (`event` is the newest).
   * Empty for an event that is not a message.
   */
  readonly messages: readonly IncomingMessage[];
  /**
   * Sends into the event's conversation (`message.reply` for a message).
   *
   * @throws {@link ConfigurationError} for an event outside any conversation (`system`);
   * otherwise what `agent.send()` throws.
   */
  reply(payload: MessagePayload | string, options?: SendOptions): Promise<SendResult>;
  /**
   * Streams a reply into the event's conversation (docs/streaming.md): with
   * no source, resolves with a writer; with an (async) iterable of text
   * chunks, writes them all and ends the stream.
   *
   * @throws {@link ConfigurationError} for an event outside any conversation; otherwise what `agent.stream()` throws.
   */
  replyStream(options?: StreamWriterOptions): Promise<StreamWriter>;
  replyStream(
    source: AsyncIterable<string> | Iterable<string>,
    options?: StreamWriterOptions,
  ): Promise<StreamSummary>;
  /**
   * Starts downloading the file of this event's `file` payload (see `agent.files.download`).
   *
   * @throws {@link ValidationError} when the event is not a message with a valid `file` payload.
   */
  downloadFile(options?: FileDownloadOptions): Promise<FileDownload>;
  /**
   * Encrypts and uploads `source` into the event's conversation and sends the
   * `file` message (see `agent.files.upload`).
   *
   * @throws {@link ConfigurationError} for an event outside any conversation; otherwise what `agent.files.upload()` throws.
   */
  replyWithFile(source: FileSource, options?: FileUploadOptions): Promise<SentFile<SendResult>>;
  /**
   * Shows a status in the event's conversation ("searching the web…"),
   * sealed end to end and kept alive until the handler replies or ends;
   * `null` clears it (see `agent.status`, docs/agent.md "Status").
   *
   * @throws {@link ConfigurationError} for an event outside any conversation; otherwise what `agent.status()` throws.
   */
  status(text: string | null): Promise<void>;
}

/** The context of a `message.new`. */
export type MessageContext = Context<IncomingMessage>;

/** The context of a `command` middleware: `command` is set. */
export type CommandContext = MessageContext & { readonly command: CommandMatch };

/** The context of a `hears` middleware: `match` is set. */
export type HearsContext = MessageContext & { readonly match: RegExpMatchArray };

/** What a context needs from the agent. */
export interface ContextDeps {
  readonly agentId: string;
  /** The agent's file transfer. */
  readonly files?: FileTransfer<SendResult>;
  send(conversationId: string, payload: MessagePayload | string, options?: SendOptions): Promise<SendResult>;
  /** Opens a streamed reply (`agent.stream`). */
  stream?(conversationId: string, options?: StreamWriterOptions): Promise<StreamWriter>;
  /** The turn of a message event (its signal and messages), while it runs. */
  turnOf?(
    event: object,
  ): { readonly signal: AbortSignal; readonly messages: readonly IncomingMessage[] } | undefined;
  /** The signal of events outside a turn (aborts at the shutdown deadline). */
  readonly signal?: AbortSignal;
  /** Sets the conversation's status (`agent.status`). */
  status?(conversationId: string, text: string | null): Promise<void>;
}

const NEVER_ABORTED = new AbortController().signal;

/** The context of one event. */
export function createContext<Ev extends AnyAgentEvent>(event: Ev, deps: ContextDeps): Context<Ev> {
  const message = event.type === 'message.new' ? (event as IncomingMessage) : undefined;
  const turn = deps.turnOf?.(event);
  return {
    signal: turn?.signal ?? deps.signal ?? NEVER_ABORTED,
    messages: turn?.messages ?? (message === undefined ? [] : [message]),
    event,
    type: event.type,
    agentId: deps.agentId,
    text: message?.text,
    match: undefined,
    command: undefined,
    state: {},
    reply(payload, options) {
      if (message !== undefined) return message.reply(payload, options);
      if (event.conversationId === 'system') {
        return Promise.reject(
          new ConfigurationError({
            option: 'reply',
            message: `A ${event.type} event belongs to no conversation: use agent.send(conversationId, …).`,
          }),
        );
      }
      return deps.send(event.conversationId, payload, options);
    },
    replyStream(
      sourceOrOptions?: TextChunkSource | StreamWriterOptions,
      options?: StreamWriterOptions,
    ): Promise<never> {
      if (message !== undefined)
        return message.replyStream(sourceOrOptions as never, options) as Promise<never>;
      return replyStreamInto(
        deps.stream,
        event.conversationId,
        event.type,
        sourceOrOptions,
        options,
      ) as Promise<never>;
    },
    downloadFile(options) {
      if (message === undefined || deps.files === undefined) {
        return Promise.reject(new ValidationError({ message: `A ${event.type} event carries no file.` }));
      }
      // Checked again at run time: a non-file payload is a ValidationError.
      return deps.files.download(message.payload as FilePayload, options);
    },
    replyWithFile(source, options) {
      if (deps.files === undefined || event.conversationId === 'system') {
        return Promise.reject(
          new ConfigurationError({
            option: 'replyWithFile',
            message: `A ${event.type} event belongs to no conversation: use agent.files.upload(conversationId, …).`,
          }),
        );
      }
      return deps.files.upload(event.conversationId, source, options);
    },
    status(text) {
      if (deps.status === undefined || event.conversationId === 'system') {
        return Promise.reject(
          new ConfigurationError({
            option: 'status',
            message: `A ${event.type} event belongs to no conversation: use agent.status(conversationId, …).`,
          }),
        );
      }
      return deps.status(event.conversationId, text);
    },
  };
}

/** True for the context of a `message.new` (a type guard for `filter`). */
export function isMessage(ctx: Context): ctx is MessageContext {
  return ctx.type === 'message.new';
}
