/**
 * What a file can be uploaded from: a path, bytes, a Node Readable, a web
 * ReadableStream or any async iterable of bytes, turned into one async
 * iterable (read in 1 MiB pieces for a path) and its size when known.
 *
 * @module
 */
import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { ValidationError } from '../core/errors/validation-error.js';

/**
 * Bytes per read of a path source: 16 chunks per read (each sealed in place,
 * without a copy), 16 times fewer reads than one per chunk.
 */
export const SOURCE_READ_BYTES = 1_048_576;

/**
 * Reads the file at `path` into one reused buffer: each piece is valid only
 * until the next is asked for. The encryptor consumes (seals or copies)
 * every piece before it asks for the next, so a 100 MB upload allocates one
 * 1 MiB buffer instead of a fresh one per read (less garbage, lower peak RSS).
 */
async function* readFileReusing(path: string | URL, size: number): AsyncGenerator<Uint8Array> {
  const handle = await open(path, 'r');
  try {
    // No larger than the file (plus one byte to see its end in one read): a 1 KB file costs no 1 MiB buffer.
    // Not zero-filled: only the bytes a read filled are ever handed out.
    const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(SOURCE_READ_BYTES, size + 1)));
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) return;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

/**
 * A file to upload: a filesystem path (string or `file:` URL), bytes, a Node
 * `Readable`, a web `ReadableStream<Uint8Array>`, or any (async) iterable of bytes.
 */
export type FileSource =
  string | URL | Uint8Array | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

/** A source opened for reading. */
export interface OpenedSource {
  readonly pieces: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
  /** Plaintext size when known before reading (paths and bytes). */
  readonly size: number | undefined;
  /** The file name a path suggests. */
  readonly name: string | undefined;
}

function isReadableStream(value: unknown): value is ReadableStream<Uint8Array> {
  return typeof (value as { getReader?: unknown } | null)?.getReader === 'function';
}

async function* readWebStream(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * Opens `source`.
 *
 * @throws {@link ValidationError} (reason `not_a_file`) for a path that is not a regular file, or a value of another kind.
 */
export async function openSource(source: FileSource): Promise<OpenedSource> {
  if (typeof source === 'string' || source instanceof URL) {
    const info = await stat(source).catch(() => undefined);
    if (info === undefined || !info.isFile()) {
      throw new ValidationError({
        message: 'The upload source is not a readable file.',
        params: { reason: 'not_a_file' },
      });
    }
    const path = typeof source === 'string' ? source : source.pathname;
    return {
      pieces: readFileReusing(source, info.size),
      size: info.size,
      name: basename(path),
    };
  }
  if (source instanceof Uint8Array) return { pieces: [source], size: source.length, name: undefined };
  if (isReadableStream(source)) return { pieces: readWebStream(source), size: undefined, name: undefined };
  if (typeof (source as Partial<AsyncIterable<unknown>>)[Symbol.asyncIterator] === 'function') {
    return { pieces: source as AsyncIterable<Uint8Array>, size: undefined, name: undefined };
  }
  if (typeof (source as Partial<Iterable<unknown>>)[Symbol.iterator] === 'function') {
    return { pieces: source as Iterable<Uint8Array>, size: undefined, name: undefined };
  }
  throw new ValidationError({ message: 'Unsupported upload source.', params: { reason: 'not_a_file' } });
}

/** Checks each piece is bytes (a string piece from a text-mode stream would be silently mangled). */
export async function* bytesOnly(
  pieces: AsyncIterable<unknown> | Iterable<unknown>,
): AsyncGenerator<Uint8Array> {
  for await (const piece of pieces) {
    if (!(piece instanceof Uint8Array)) {
      throw new ValidationError({
        message: 'The upload source gave a piece that is not bytes (Uint8Array or Buffer).',
        params: { reason: 'not_bytes' },
      });
    }
    yield piece;
  }
}
