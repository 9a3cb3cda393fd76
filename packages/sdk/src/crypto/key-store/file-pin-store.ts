/**
 * Peers' pinned public keys in one JSON file beside a {@link FileKeyStore}'s
 * key file (`<directory>/pins.json` by default), so a restart is not a first
 * answer. It holds public keys and times only, never a secret.
 *
 * Every change rewrites the file atomically through the key store's file-system
 * seam: a fresh temporary file (mode 0600, created exclusively), renamed over
 * the pin file, then the directory fsynced; writes are serialised. A missing
 * file is an empty store; an unreadable or malformed one is a
 * {@link CryptoError} (`KEY_STORE_IO`, `KEY_STORE_CORRUPT`): pins are never
 * silently dropped, since that would re-trust whatever key the service shows
 * next. Records are validated by their reader (`KeyPins`).
 *
 * @module
 */
import { fromUtf8, utf8 } from '../../core/encoding.js';
import { CryptoError } from '../../core/errors/crypto-error.js';
import { nodeFileSystem, type FileKeyStoreFs } from './file-system.js';
import { nodePath } from './file-system-builtins.js';

/** Name of the pin file inside the key store's directory. */
export const PIN_FILE_NAME = 'pins.json';

/** A per-peer record store (the shape `KeyPins` needs). */
export interface PinRecordStore {
  get(peerId: string): Promise<unknown>;
  set(peerId: string, record: unknown): Promise<void>;
}

/** Options of {@link FilePinStore}. */
export interface FilePinStoreOptions {
  /** Directory of the pin file (created with mode 0700 if missing). */
  directory: string;
  /** @defaultValue {@link PIN_FILE_NAME} */
  fileName?: string;
  /** File-system seam. @defaultValue the Node file system */
  fs?: FileKeyStoreFs;
}

const MAX_PEERS = 100_000;

/** Pins kept in a JSON file (`{ "version": 2, "pins": { [peerId]: record } }`). */
export class FilePinStore implements PinRecordStore {
  /** Full path of the pin file. */
  readonly file: string;
  readonly #directory: string;
  readonly #fs: FileKeyStoreFs;
  #pins: Promise<Map<string, unknown>> | undefined;
  #writes: Promise<void> = Promise.resolve();

  constructor(options: FilePinStoreOptions) {
    this.#directory = options.directory;
    this.file = nodePath().join(options.directory, options.fileName ?? PIN_FILE_NAME);
    this.#fs = options.fs ?? nodeFileSystem;
  }

  /** The stored record of `peerId`, unvalidated. @throws {@link index!CryptoError | CryptoError} `KEY_STORE_IO` / `KEY_STORE_CORRUPT`. */
  async get(peerId: string): Promise<unknown> {
    return (await this.#load()).get(peerId);
  }

  /** Stores `record` for `peerId` and rewrites the file atomically. @throws {@link index!CryptoError | CryptoError} `KEY_STORE_IO`. */
  async set(peerId: string, record: unknown): Promise<void> {
    const pins = await this.#load();
    if (!pins.has(peerId) && pins.size >= MAX_PEERS) pins.delete(pins.keys().next().value!);
    pins.set(peerId, record);
    const body = utf8(JSON.stringify({ version: 2, pins: Object.fromEntries(pins) }));
    const write = this.#writes.then(() => this.#write(body));
    this.#writes = write.catch(() => undefined);
    return write;
  }

  #load(): Promise<Map<string, unknown>> {
    this.#pins ??= this.#read();
    return this.#pins;
  }

  async #read(): Promise<Map<string, unknown>> {
    let bytes: Uint8Array;
    try {
      bytes = await this.#fs.readFile(this.file);
    } catch (err) {
      if ((err as { code?: unknown } | null)?.code === 'ENOENT') return new Map();
      this.#pins = undefined;
      throw new CryptoError({
        code: 'KEY_STORE_IO',
        message: 'The key pin file could not be read.',
        file: this.file,
        cause: err,
      });
    }
    try {
      const parsed = JSON.parse(fromUtf8(bytes) ?? '') as { version?: unknown; pins?: unknown };
      const ok =
        (parsed.version === 1 || parsed.version === 2) &&
        typeof parsed.pins === 'object' &&
        parsed.pins !== null &&
        !Array.isArray(parsed.pins);
      if (!ok) throw new Error('shape');
      return new Map(Object.entries(parsed.pins as Record<string, unknown>));
    } catch (cause) {
      throw new CryptoError({
        code: 'KEY_STORE_CORRUPT',
        message: 'The key pin file is malformed.',
        file: this.file,
        cause,
      });
    }
  }

  async #write(body: Uint8Array): Promise<void> {
    const tmp = `${this.file}.tmp-${globalThis.crypto.randomUUID()}`;
    try {
      await this.#fs.mkdir(this.#directory, 0o700);
      await this.#fs.writeNewFile(tmp, body, 0o600);
      await this.#fs.rename(tmp, this.file);
      await this.#fs.syncDirectory(this.#directory);
    } catch (err) {
      await this.#fs.unlink(tmp).catch(() => undefined);
      throw new CryptoError({
        code: 'KEY_STORE_IO',
        message: 'The key pin file could not be written.',
        file: this.file,
        cause: err,
      });
    }
  }
}
