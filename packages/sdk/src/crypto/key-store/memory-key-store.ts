/**
 * An in-memory {@link KeyStore}: for tests and short-lived agents whose keys
 * need not survive the process. Holds the serialised form, so what comes out
 * of `load` never aliases what went into `save`.
 *
 * @module
 */
import { systemClock, type Clock } from '../../core/clock.js';
import { decodeKeyRing, encodeKeyRing } from './key-ring-codec.js';
import type { KeyRing } from './key-ring.js';
import { pruneOnLoad, type KeyStore, type KeyStoreOptions } from './key-store.js';

/**
 * Keeps the key ring in memory.
 *
 * @example
 * ```ts
 * const store = new MemoryKeyStore({ clock });
 * const { ring } = await loadOrCreateKeys(store, { clock });
 * ```
 */
export class MemoryKeyStore implements KeyStore {
  #data: Uint8Array | undefined;
  readonly #clock: Clock;

  constructor(options: KeyStoreOptions = {}) {
    this.#clock = options.clock ?? systemClock;
  }

  /** {@inheritDoc KeyStore.load} */
  async load(): Promise<KeyRing | undefined> {
    if (this.#data === undefined) return undefined;
    return pruneOnLoad(decodeKeyRing(this.#data, 'memory'), this.#clock, (r) => this.save(r));
  }

  /** {@inheritDoc KeyStore.save} */
  async save(ring: KeyRing): Promise<void> {
    const previous = this.#data;
    this.#data = encodeKeyRing(ring);
    previous?.fill(0);
  }

  /** {@inheritDoc KeyStore.saveIfAbsent} */
  async saveIfAbsent(ring: KeyRing): Promise<boolean> {
    if (this.#data !== undefined) return false;
    this.#data = encodeKeyRing(ring);
    return true;
  }

  /** {@inheritDoc KeyStore.wipe} */
  async wipe(): Promise<void> {
    this.#data?.fill(0);
    this.#data = undefined;
  }
}
