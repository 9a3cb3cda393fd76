/**
 * A {@link KeyPinStore} in one JSON file, so pins survive restarts. Every
 * change rewrites the file atomically (a temporary file in the same folder,
 * mode 0600, then `rename`); writes are serialised. A missing file is an
 * empty store; an unreadable or malformed one is a {@link CryptoError}
 * `KEY_STORE_CORRUPT` (pins are never silently dropped: that would re-trust
 * whatever key the service shows next).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { CryptoError } from '../core/errors/crypto-error.js';
import type { KeyPinStore, PinRecord } from '../messaging/key-pins.js';

/** Pins kept in a JSON file (`{ version: 1, pins: { [peerId]: PinRecord } }`). */
export class FileKeyPinStore implements KeyPinStore {
  readonly #file: string;
  #pins: Promise<Map<string, PinRecord>> | undefined;
  #writes: Promise<void> = Promise.resolve();

  /** @param file - path of the JSON file (its folder must exist). */
  constructor(file: string) {
    this.#file = file;
  }

  async get(peerId: string): Promise<PinRecord | undefined> {
    return (await this.#load()).get(peerId);
  }

  async set(peerId: string, record: PinRecord): Promise<void> {
    const pins = await this.#load();
    pins.set(peerId, record);
    const body = JSON.stringify({ version: 1, pins: Object.fromEntries(pins) });
    const write = this.#writes.then(() => this.#write(body));
    this.#writes = write.catch(() => undefined);
    return write;
  }

  #load(): Promise<Map<string, PinRecord>> {
    this.#pins ??= this.#read();
    return this.#pins;
  }

  async #read(): Promise<Map<string, PinRecord>> {
    let text: string;
    try {
      text = await readFile(this.#file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
      throw new CryptoError({
        code: 'KEY_STORE_IO',
        message: 'The key pin file could not be read.',
        file: this.#file,
        cause: err,
      });
    }
    try {
      const parsed = JSON.parse(text) as { version?: unknown; pins?: unknown };
      if (parsed.version !== 1 || typeof parsed.pins !== 'object' || parsed.pins === null)
        throw new Error('shape');
      return new Map(Object.entries(parsed.pins as Record<string, PinRecord>));
    } catch (cause) {
      throw new CryptoError({
        code: 'KEY_STORE_CORRUPT',
        message: 'The key pin file is malformed.',
        file: this.#file,
        cause,
      });
    }
  }

  async #write(body: string): Promise<void> {
    const tmp = `${this.#file}.${randomUUID()}.tmp`;
    try {
      await writeFile(tmp, body, { mode: 0o600, flag: 'wx' });
      await rename(tmp, this.#file);
    } catch (err) {
      await rm(tmp, { force: true });
      throw new CryptoError({
        code: 'KEY_STORE_IO',
        message: 'The key pin file could not be written.',
        file: this.#file,
        cause: err,
      });
    }
  }
}
