/**
 * The slice of fetch the ref fetcher needs, typed structurally, and a
 * size-capped body reader.
 *
 * @module
 */
import type { Clock } from '../../core/clock.js';
import { concatBytes } from '../../core/encoding.js';

/** The response members the fetcher reads. */
export interface FetchResponseLike {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body: ReadableStream<Uint8Array> | null;
}

/** A fetch function (the global one fits). */
export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; signal: AbortSignal },
) => Promise<FetchResponseLike>;

/** Cancels a body we will not read, without waiting (some sources never settle a cancel). */
export function discard(body: ReadableStream<Uint8Array> | null): void {
  body?.cancel().catch(() => undefined);
}

/** Waits `ms` of the clock's time. */
export function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimeout(resolve, ms));
}

/**
 * Reads a body stream completely; `undefined` (and the stream cancelled) as
 * soon as it exceeds `maxBytes`.
 */
export async function readLimited(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<Uint8Array | undefined> {
  if (body === null) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > maxBytes) {
      // Not awaited: some stream sources never settle a cancel.
      reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0]! : concatBytes(...chunks);
}
