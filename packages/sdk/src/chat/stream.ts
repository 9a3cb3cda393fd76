/**
 * A Chat SDK text stream written into one of our stream writers: text and
 * `markdown_text` chunks as text, `task_update` chunks as plan steps updated
 * in place by id, `plan_update` as the plan's title step. An abort signal
 * (the Chat SDK's turn) aborts the stream with a signed `stopped`.
 *
 * @module
 */
import type { StreamChunk } from 'chat';
import type { StreamSummary, StreamWriter } from '../index.js';

const STEP_STATUS = {
  pending: 'pending',
  in_progress: 'running',
  complete: 'done',
  error: 'failed',
} as const;

const DETAIL_MAX = 4096;
const TITLE_MAX = 1024;

/** Writes `source` into `writer` and ends it; aborts it (and rethrows) when the source fails or `signal` aborts. */
export async function streamToWriter(
  writer: StreamWriter,
  source: AsyncIterable<string | StreamChunk>,
  signal?: AbortSignal,
): Promise<StreamSummary> {
  try {
    for await (const chunk of source) {
      if (signal?.aborted === true) break;
      if (typeof chunk === 'string') {
        if (chunk !== '') await writer.write(chunk);
      } else if (chunk.type === 'markdown_text') {
        if (chunk.text !== '') await writer.write(chunk.text);
      } else if (chunk.type === 'task_update') {
        const detail = chunk.output ?? chunk.details;
        await writer.step({
          id: chunk.id.slice(0, 128),
          title: chunk.title.slice(0, TITLE_MAX),
          status: STEP_STATUS[chunk.status] ?? 'running',
          ...(detail === undefined || detail === '' ? {} : { detail: detail.slice(0, DETAIL_MAX) }),
        });
      } else if (chunk.type === 'plan_update') {
        await writer.step({ id: 'plan', title: chunk.title.slice(0, TITLE_MAX), status: 'running' });
      }
    }
  } catch (err) {
    await writer.abort(signal?.aborted === true ? 'stopped' : 'the source failed').catch(() => undefined);
    throw err;
  }
  if (signal?.aborted === true) {
    await writer.abort('stopped').catch(() => undefined);
    throw signal.reason instanceof Error ? signal.reason : new DOMException('stopped', 'AbortError');
  }
  return writer.end();
}
