/**
 * `replyStream()` of a `message.new` event and of a middleware context: with
 * no source, a writer; with an (async) iterable of text chunks, the whole
 * stream written and ended.
 *
 * @module
 */
import { ConfigurationError } from '../../core/errors/configuration-error.js';
import { pipeToWriter, type StreamSummary, type StreamWriter, type StreamWriterOptions } from './writer.js';

/** Opens a streamed reply into a conversation (`agent.stream`). */
export type StreamOpener = (conversationId: string, options?: StreamWriterOptions) => Promise<StreamWriter>;

/** A source of text chunks: an LLM SDK's token stream, a generator, an array. */
export type TextChunkSource = AsyncIterable<string> | Iterable<string>;

/** True for an (async) iterable object (a string is not taken for a source). */
export function isTextChunkSource(value: unknown): value is TextChunkSource {
  return (
    typeof value === 'object' && value !== null && (Symbol.asyncIterator in value || Symbol.iterator in value)
  );
}

/**
 * Opens a stream into `conversationId` and, when `sourceOrOptions` is a
 * source, pipes it and ends the stream.
 *
 * @param what - the event type, for the error when there is no conversation.
 * @throws {@link ConfigurationError} (rejected) when `open` is missing or the event belongs to no conversation.
 */
export function replyStreamInto(
  open: StreamOpener | undefined,
  conversationId: string,
  what: string,
  sourceOrOptions?: TextChunkSource | StreamWriterOptions,
  options?: StreamWriterOptions,
): Promise<StreamWriter | StreamSummary> {
  if (open === undefined || conversationId === 'system') {
    return Promise.reject(
      new ConfigurationError({
        option: 'replyStream',
        message: `A ${what} event belongs to no conversation: use agent.stream(conversationId).`,
      }),
    );
  }
  const source = isTextChunkSource(sourceOrOptions) ? sourceOrOptions : undefined;
  const o = source === undefined ? (sourceOrOptions as StreamWriterOptions | undefined) : options;
  const writer = open(conversationId, o);
  return source === undefined ? writer : writer.then((w) => pipeToWriter(w, source));
}
