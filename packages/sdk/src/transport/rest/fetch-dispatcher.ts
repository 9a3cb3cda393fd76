/**
 * The REST client's fallback for runtimes whose `undici` is not undici: Bun
 * answers `import 'undici'` with its own module, whose `Agent` has no
 * `request`. The REST client only calls `dispatcher.request`, so this
 * implements that one method on the runtime's `fetch`, with undici's
 * semantics where the client relies on them: redirects are not followed, the
 * body is read as a stream (the client caps it) and can be dropped early.
 *
 * @module
 */
import type { Dispatcher } from 'undici';

/** The part of a `Dispatcher` the REST client uses. */
export type RequestOnlyDispatcher = Pick<Dispatcher, 'request'>;

/** The response body: async-iterable chunks, `destroy()` drops the rest. */
function streamBody(
  stream: ReadableStream<Uint8Array> | null,
): AsyncIterable<Uint8Array> & { destroy(): void } {
  const reader = stream?.getReader();
  return {
    async *[Symbol.asyncIterator]() {
      if (reader === undefined) return;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        yield value;
      }
    },
    destroy() {
      // Not awaited: cancelling a finished or failed stream may reject.
      reader?.cancel().catch(() => undefined);
    },
  };
}

function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  return record;
}

/**
 * A dispatcher whose `request` goes through `fetchImpl` (default: the global
 * `fetch`). Only `origin`, `path`, `method`, `headers`, `body` and `signal` of
 * the request options are read.
 */
export function createFetchDispatcher(fetchImpl: typeof fetch = globalThis.fetch): RequestOnlyDispatcher {
  const request = async (options: Dispatcher.RequestOptions) => {
    const origin = typeof options.origin === 'string' ? options.origin : String(options.origin);
    const init: RequestInit = {
      method: options.method,
      headers: (options.headers ?? {}) as Record<string, string>,
      body: (options.body ?? null) as string | null,
      redirect: 'manual',
    };
    if (options.signal !== undefined && options.signal !== null) init.signal = options.signal as AbortSignal;
    const res = await fetchImpl(new URL(options.path, origin), init);
    return {
      statusCode: res.status,
      headers: headerRecord(res.headers),
      body: streamBody(res.body),
    };
  };
  return { request: request as unknown as Dispatcher['request'] };
}

/**
 * `agent` when it is a working undici dispatcher, else a fetch-backed one
 * (Bun's built-in `undici` module exports an `Agent` without `request`).
 */
export function usableDispatcher(agent: Dispatcher): Dispatcher {
  if (typeof (agent as Partial<Dispatcher>).request === 'function') return agent;
  return createFetchDispatcher() as Dispatcher;
}
