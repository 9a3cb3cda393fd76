/**
 * Where the reference server keeps uploaded file ciphertext: one temporary
 * file per object on disk (so a 100 MB upload never sits in memory), the
 * records in a map. One store per server, created on first use and removed
 * with the server (`closeFileObjects`).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerContext } from '../context.js';

/** Bytes gathered before the store writes them to disk. */
const WRITE_BATCH_BYTES = 1_048_576;
/**
 * Bytes per read of a stored object as it is sent: a megabyte per read and
 * socket write cost the server 22-27 % less CPU per MB than 256 KiB
 * (docs/performance.md#file-transfer).
 */
const READ_BYTES = 1_048_576;

/** A stored file object. */
export interface FileObject {
  readonly objectKey: string;
  readonly conversationId: string;
  /** Who uploaded it (user or agent id). */
  readonly uploaderId: string;
  /** Ciphertext bytes. */
  readonly size: number;
  /** Lowercase hex SHA-256 of the ciphertext. */
  readonly sha256: string;
  readonly createdAtMs: number;
  readonly path: string;
}

/** A new object being written. */
export interface PendingObject {
  readonly objectKey: string;
  /** Queues `bytes` (kept, not copied: do not reuse the array) for writing. */
  write(bytes: Uint8Array): Promise<void>;
  /** Closes the file and makes the object fetchable. */
  commit(record: Omit<FileObject, 'objectKey' | 'path'>): Promise<FileObject>;
  /** Closes and deletes the file. */
  discard(): Promise<void>;
}

/** The store of one server. */
export class FileObjects {
  readonly #objects = new Map<string, FileObject>();
  #dir: Promise<string> | undefined;

  /** Starts a new object. */
  async create(): Promise<PendingObject> {
    this.#dir ??= mkdtemp(join(tmpdir(), 'ams-files-'));
    const objectKey = `file_${randomUUID()}`;
    const path = join(await this.#dir, objectKey);
    const handle: FileHandle = await open(path, 'w');
    let closed = false;
    // Write-behind: pieces gather into batches of about 1 MiB, each written with one writev
    // while the next fills (at most two batches held), instead of one awaited write per piece.
    let batch: Uint8Array[] = [];
    let batched = 0;
    let inFlight: Promise<unknown> | undefined;
    const flush = async (): Promise<void> => {
      if (inFlight !== undefined) await inFlight;
      inFlight = batch.length === 0 ? undefined : handle.writev(batch);
      inFlight?.catch(() => undefined); // rethrown where awaited
      batch = [];
      batched = 0;
    };
    const close = async (): Promise<void> => {
      if (closed) return;
      closed = true;
      await inFlight?.catch(() => undefined);
      await handle.close();
    };
    return {
      objectKey,
      write: async (bytes) => {
        if (bytes.length === 0) return;
        batch.push(bytes);
        batched += bytes.length;
        if (batched >= WRITE_BATCH_BYTES) await flush();
      },
      commit: async (record) => {
        await flush();
        await inFlight;
        await close();
        const object: FileObject = { ...record, objectKey, path };
        this.#objects.set(objectKey, object);
        return object;
      },
      discard: async () => {
        await close();
        await rm(path, { force: true });
      },
    };
  }

  /** The object under `key`, if any. */
  get(key: string): FileObject | undefined {
    return this.#objects.get(key);
  }

  /** The ciphertext of `object`, read from disk as it is sent. */
  read(object: FileObject): AsyncIterable<Uint8Array> {
    return createReadStream(object.path, { highWaterMark: READ_BYTES });
  }

  /** Deletes every object. */
  async close(): Promise<void> {
    this.#objects.clear();
    if (this.#dir !== undefined) await rm(await this.#dir, { recursive: true, force: true });
  }
}

const stores = new WeakMap<ServerContext, FileObjects>();

/** The file store of `ctx`'s server. */
export function fileObjectsOf(ctx: ServerContext): FileObjects {
  let store = stores.get(ctx);
  if (store === undefined) {
    store = new FileObjects();
    stores.set(ctx, store);
  }
  return store;
}

/** Removes `ctx`'s file store and its files (server close). */
export async function closeFileObjects(ctx: ServerContext): Promise<void> {
  const store = stores.get(ctx);
  stores.delete(ctx);
  await store?.close();
}
