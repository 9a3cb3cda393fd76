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
 * Before the key file is replaced, the generation it held (if it is intact)
 * is written the same way to `<file>.prev`, which a verified load also brings
 * up to date. When the key file is corrupt, `load` falls back to
 * `<file>.prev` with a warning and restores the key file from it; when both
 * are corrupt it throws `KEY_STORE_CORRUPT`.
 *
 * Concurrent writers are not coordinated, except for the first ring:
 * {@link FileKeyStore.saveIfAbsent} creates the key file with a hard link
 * from a complete temp file, which fails atomically when the file exists, so
 * several copies starting on one empty shared directory agree on one ring.
 *
 * @module
 */
import { systemClock, type Clock } from '../../core/clock.js';
import { CryptoError } from '../../core/errors/crypto-error.js';
import { isCryptoError } from '../../core/errors/guards.js';
import { redactingLogger, silentLogger, type Logger } from '../../core/logger.js';
import { nodeFileSystem, type FileKeyStoreFs } from './file-system.js';
import { nodePath } from './file-system-builtins.js';
import { FilePinStore } from './file-pin-store.js';
import { decodeKeyRingFile, encodeKeyRing, type DecodedKeyRing } from './key-ring-codec.js';
import type { KeyRing } from './key-ring.js';
import type { KeyStore, KeyStoreOptions } from './key-store.js';

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
  /**
   * Where the store warns: falling back to the previous generation, migrating
   * a version 1 file. Lines are redacted and never carry a key.
   * @defaultValue `silentLogger`
   */
  logger?: Logger;
}

/** Suffix of the file holding the previous generation, beside the key file. */
export const PREVIOUS_KEY_FILE_SUFFIX = '.prev';

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

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && a.every((v, i) => v === b[i]);

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
 * Stores the key ring in `<directory>/<fileName>`, and a previous generation
 * in `<directory>/<fileName>.prev`: the ring the key file held before the
 * last save, or, once the key file has been read back intact, that ring.
 *
 * @example
 * ```ts
 * const store = new FileKeyStore({ directory: '/var/lib/my-agent/keys', logger: console });
 * const { ring, created } = await loadOrCreateKeys(store);
 * ```
 */
export class FileKeyStore implements KeyStore {
  /** Full path of the key file. */
  readonly file: string;
  /** Full path of the previous generation's file (`file` + `.prev`). */
  readonly previousFile: string;
  readonly #directory: string;
  readonly #fileName: string;
  readonly #clock: Clock;
  readonly #fs: FileKeyStoreFs;
  readonly #log: Logger;
  #pinStore: FilePinStore | undefined;

  constructor(options: FileKeyStoreOptions) {
    this.#directory = options.directory;
    this.#fileName = options.fileName ?? 'keys.json';
    this.file = nodePath().join(this.#directory, this.#fileName);
    this.previousFile = `${this.file}${PREVIOUS_KEY_FILE_SUFFIX}`;
    this.#clock = options.clock ?? systemClock;
    this.#fs = options.fs ?? nodeFileSystem;
    this.#log = redactingLogger(options.logger ?? silentLogger);
  }

  /**
   * The store of peers' pinned public keys beside the key file
   * (`<directory>/pins.json`, public keys only), one per key store. The Agent
   * and the UserClient use it by default, so a restart is not a first answer.
   */
  pinStore(): FilePinStore {
    this.#pinStore ??= new FilePinStore({ directory: this.#directory, fs: this.#fs });
    return this.#pinStore;
  }

  /**
   * Loads the saved key ring (undefined when none is saved).
   *
   * A corrupt key file is replaced by the previous generation (a `warn` log
   * line; the key file is rewritten from it). A version 1 file (no checksum)
   * is rewritten as version 2 without erasing anything, since its times were
   * not verified. After a verified read, `<file>.prev` is brought up to the
   * file just read, so it holds the newest generation known to read back intact.
   */
  async load(): Promise<KeyRing | undefined> {
    const data = await this.#read(this.file);
    if (data === undefined) return undefined;
    try {
      let decoded: DecodedKeyRing;
      try {
        decoded = decodeKeyRingFile(data, this.file);
      } catch (err) {
        if (!isCryptoError(err, 'KEY_STORE_CORRUPT')) throw err;
        return await this.#restoreFromPrevious(err);
      }
      if (decoded.legacy) {
        this.#log.warn('key store file has no checksum (version 1): rewriting it as version 2', {
          file: this.file,
        });
        await this.save(decoded.ring);
        return decoded.ring;
      }
      const pruned = decoded.ring.prune(this.#clock.now());
      if (pruned !== decoded.ring) {
        await this.save(pruned); // erased keys leave the disk; both files get the pruned ring
        return pruned;
      }
      await this.#keepAsPrevious(data);
      return decoded.ring;
    } finally {
      data.fill(0);
    }
  }

  /**
   * Saves the key ring atomically (mode 0600).
   *
   * Steps: the generation in the key file (if intact; else `ring` itself)
   * goes atomically to `<file>.prev`, then `ring` atomically to the key file.
   */
  async save(ring: KeyRing): Promise<void> {
    let previous: Uint8Array | undefined;
    let data: Uint8Array | undefined;
    try {
      if (await this.#fs.mkdir(this.#directory, KEY_DIRECTORY_MODE)) {
        await this.#fs.chmod(this.#directory, KEY_DIRECTORY_MODE); // the umask may have narrowed it
      }
      await this.#removeStaleTemps();
      previous = encodeKeyRing((await this.#intactGeneration()) ?? ring);
      await this.#replace(this.previousFile, previous);
      data = encodeKeyRing(ring);
      await this.#replace(this.file, data);
    } catch (err) {
      if (isCryptoError(err, 'KEY_STORE_IO')) throw err;
      throw ioError('write', this.file, err);
    } finally {
      previous?.fill(0);
      data?.fill(0);
    }
  }

  /**
   * Saves `ring` only when no key file exists (see {@link KeyStore.saveIfAbsent}):
   * the ring goes to a complete, fsynced temp file, which is then hard-linked
   * to the key file; the link fails atomically when the key file exists, so of
   * several copies racing on one empty directory exactly one wins. `<file>.prev`
   * is brought up by the next verified load.
   */
  async saveIfAbsent(ring: KeyRing): Promise<boolean> {
    const link = this.#fs.link;
    if (link === undefined) {
      if ((await this.#read(this.file)) !== undefined) return false;
      await this.save(ring);
      return true;
    }
    const data = encodeKeyRing(ring);
    try {
      if (await this.#fs.mkdir(this.#directory, KEY_DIRECTORY_MODE)) {
        await this.#fs.chmod(this.#directory, KEY_DIRECTORY_MODE);
      }
      // A concurrent save may remove our temp file as stale before the link: try again then.
      for (let attempt = 1; ; attempt += 1) {
        const temp = nodePath().join(this.#directory, `${this.#fileName}.tmp-${randomSuffix()}`);
        try {
          await this.#fs.writeNewFile(temp, data, KEY_FILE_MODE);
          await link(temp, this.file);
        } catch (err) {
          const code = errorCode(err);
          if (code === 'EEXIST') return false;
          if (code === 'ENOENT' && attempt < 3) continue;
          throw err;
        } finally {
          await this.#fs.unlink(temp).catch(() => undefined);
        }
        await this.#fs.syncDirectory(this.#directory);
        return true;
      }
    } catch (err) {
      if (isCryptoError(err, 'KEY_STORE_IO')) throw err;
      throw ioError('create', this.file, err);
    } finally {
      data.fill(0);
    }
  }

  /** {@inheritDoc KeyStore.wipe} */
  async wipe(): Promise<void> {
    for (const file of [this.file, this.previousFile]) {
      try {
        await this.#fs.unlink(file);
      } catch (err) {
        if (errorCode(err) !== 'ENOENT') throw ioError('wipe', file, err);
      }
    }
    try {
      await this.#removeStaleTemps();
      await this.#fs.syncDirectory(this.#directory);
    } catch (err) {
      if (errorCode(err) !== 'ENOENT') throw ioError('wipe', this.file, err);
    }
  }

  /** The whole file, or `undefined` when it does not exist. */
  async #read(file: string): Promise<Uint8Array | undefined> {
    try {
      return await this.#fs.readFile(file);
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return undefined;
      throw ioError('read', file, err);
    }
  }

  /** Best effort: make `<file>.prev` hold `data` (a key file just verified); a failure is only logged. */
  async #keepAsPrevious(data: Uint8Array): Promise<void> {
    const previous = await this.#fs.readFile(this.previousFile).catch(() => undefined);
    try {
      if (previous !== undefined && sameBytes(previous, data)) return;
      await this.#replace(this.previousFile, data);
    } catch (err) {
      this.#log.warn('cannot update the previous generation of the key store', {
        file: this.previousFile,
        code: errorCode(err),
      });
    } finally {
      previous?.fill(0);
    }
  }

  /** The key file is corrupt: load the previous generation, warn, and rewrite the key file from it. */
  async #restoreFromPrevious(corrupt: CryptoError): Promise<KeyRing> {
    const data = await this.#read(this.previousFile).catch(() => undefined);
    if (data === undefined) throw corrupt;
    let decoded: DecodedKeyRing;
    try {
      decoded = decodeKeyRingFile(data, this.previousFile);
    } catch (err) {
      throw new CryptoError({
        code: 'KEY_STORE_CORRUPT',
        message: `${corrupt.message}; the previous generation ${this.previousFile} is corrupt too`,
        file: this.file,
        cause: err,
      });
    } finally {
      data.fill(0);
    }
    this.#log.warn('key store file is corrupt: loaded the previous generation and restored the file', {
      file: this.file,
      previousFile: this.previousFile,
      reason: corrupt.message,
    });
    const ring = decoded.legacy ? decoded.ring : decoded.ring.prune(this.#clock.now());
    await this.save(ring);
    return ring;
  }

  /**
   * The ring in the key file when it is intact (expired generations pruned
   * unless it is a legacy file), else `undefined`.
   */
  async #intactGeneration(): Promise<KeyRing | undefined> {
    const data = await this.#fs.readFile(this.file).catch((err: unknown) => {
      if (errorCode(err) === 'ENOENT') return undefined;
      throw err;
    });
    if (data === undefined) return undefined;
    try {
      const { ring, legacy } = decodeKeyRingFile(data, this.file);
      return legacy ? ring : ring.prune(this.#clock.now());
    } catch (err) {
      if (isCryptoError(err, 'KEY_STORE_CORRUPT')) return undefined;
      throw err;
    } finally {
      data.fill(0);
    }
  }

  /** Atomic, durable replace of `file` by `data` (temp file, fsync, rename, fsync directory). */
  async #replace(file: string, data: Uint8Array): Promise<void> {
    const temp = nodePath().join(this.#directory, `${this.#fileName}.tmp-${randomSuffix()}`);
    try {
      await this.#fs.writeNewFile(temp, data, KEY_FILE_MODE);
      await this.#fs.rename(temp, file);
      await this.#fs.syncDirectory(this.#directory);
    } catch (err) {
      await this.#fs.unlink(temp).catch(() => undefined);
      throw err;
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
      if (name.startsWith(prefix)) await this.#fs.unlink(nodePath().join(this.#directory, name));
    }
  }
}
