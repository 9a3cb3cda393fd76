/**
 * A {@link KeyStore} in a private directory (Node only).
 *
 * Every write is atomic and durable: the ring goes to a fresh temp file
 * (`<file>.tmp-<random>`, mode 0600, created exclusively), which is fsynced,
 * renamed over the key file, and then the directory is fsynced. A crash at
 * any point leaves the old file or the new one, never a torn one; a temp file
 * left by a crash is never read and is removed by the next save or wipe.
 * The directory is created with mode 0700.
 *
 * One process per directory: concurrent writers are not coordinated.
 *
 * @module
 */
import { join } from 'node:path';
import { systemClock, type Clock } from '../../core/clock.js';
import { CryptoError } from '../../core/errors/crypto-error.js';
import { nodeFileSystem, type FileKeyStoreFs } from './file-system.js';
import { decodeKeyRing, encodeKeyRing } from './key-ring-codec.js';
import type { KeyRing } from './key-ring.js';
import { pruneOnLoad, type KeyStore, type KeyStoreOptions } from './key-store.js';

/** Options of {@link FileKeyStore}. */
export interface FileKeyStoreOptions extends KeyStoreOptions {
  /** Directory holding the key file; created with mode 0700 if missing. Use a directory of its own. */
  directory: string;
  /**
   * Name of the key file inside `directory`.
   * @defaultValue `'keys.json'`
   */
  fileName?: string;
  /**
   * File-system seam, for tests that simulate a crash at a given step.
   * @defaultValue {@link nodeFileSystem}
   */
  fs?: FileKeyStoreFs;
}

/** Permission bits of the key file. */
export const KEY_FILE_MODE = 0o600;
/** Permission bits of a key directory the store creates. */
export const KEY_DIRECTORY_MODE = 0o700;

function randomSuffix(): string {
  let out = '';
  for (const b of globalThis.crypto.getRandomValues(new Uint8Array(8)))
    out += b.toString(16).padStart(2, '0');
  return out;
}

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function ioError(action: string, file: string, cause: unknown): CryptoError {
  const code = errorCode(cause);
  return new CryptoError({
    code: 'KEY_STORE_IO',
    message: `Cannot ${action} key store ${file}${code === undefined ? '' : ` (${code})`}`,
    file,
    cause,
  });
}

/**
 * Stores the key ring in `<directory>/<fileName>`.
 *
 * @example
 * ```ts
 * const store = new FileKeyStore({ directory: '/var/lib/my-agent/keys' });
 * const { ring, created } = await loadOrCreateKeys(store);
 * ```
 */
export class FileKeyStore implements KeyStore {
  /** Full path of the key file. */
  readonly file: string;
  readonly #directory: string;
  readonly #fileName: string;
  readonly #clock: Clock;
  readonly #fs: FileKeyStoreFs;

  constructor(options: FileKeyStoreOptions) {
    this.#directory = options.directory;
    this.#fileName = options.fileName ?? 'keys.json';
    this.file = join(this.#directory, this.#fileName);
    this.#clock = options.clock ?? systemClock;
    this.#fs = options.fs ?? nodeFileSystem;
  }

  /** {@inheritDoc KeyStore.load} */
  async load(): Promise<KeyRing | undefined> {
    let data: Uint8Array;
    try {
      data = await this.#fs.readFile(this.file);
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return undefined;
      throw ioError('read', this.file, err);
    }
    try {
      return await pruneOnLoad(decodeKeyRing(data, this.file), this.#clock, (r) => this.save(r));
    } finally {
      data.fill(0);
    }
  }

  /** {@inheritDoc KeyStore.save} */
  async save(ring: KeyRing): Promise<void> {
    const data = encodeKeyRing(ring);
    const temp = join(this.#directory, `${this.#fileName}.tmp-${randomSuffix()}`);
    try {
      if (await this.#fs.mkdir(this.#directory, KEY_DIRECTORY_MODE)) {
        await this.#fs.chmod(this.#directory, KEY_DIRECTORY_MODE); // the umask may have narrowed it
      }
      await this.#removeStaleTemps();
      await this.#fs.writeNewFile(temp, data, KEY_FILE_MODE);
      await this.#fs.rename(temp, this.file);
      await this.#fs.syncDirectory(this.#directory);
    } catch (err) {
      await this.#fs.unlink(temp).catch(() => undefined);
      throw ioError('write', this.file, err);
    } finally {
      data.fill(0);
    }
  }

  /** {@inheritDoc KeyStore.wipe} */
  async wipe(): Promise<void> {
    try {
      await this.#fs.unlink(this.file);
    } catch (err) {
      if (errorCode(err) !== 'ENOENT') throw ioError('wipe', this.file, err);
    }
    try {
      await this.#removeStaleTemps();
      await this.#fs.syncDirectory(this.#directory);
    } catch (err) {
      if (errorCode(err) !== 'ENOENT') throw ioError('wipe', this.file, err);
    }
  }

  // Temp files of an interrupted save: never read, removed here. Missing directory → nothing to do.
  async #removeStaleTemps(): Promise<void> {
    let names: string[];
    try {
      names = await this.#fs.readdir(this.#directory);
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return;
      throw err;
    }
    const prefix = `${this.#fileName}.tmp-`;
    for (const name of names) {
      if (name.startsWith(prefix)) await this.#fs.unlink(join(this.#directory, name));
    }
  }
}
