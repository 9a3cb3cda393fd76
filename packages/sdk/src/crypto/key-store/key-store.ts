/**
 * The key store seam: where an agent's {@link KeyRing} lives between runs.
 * Implementations: {@link MemoryKeyStore} (tests, ephemeral agents) and
 * `FileKeyStore` (Node, a private directory).
 *
 * @module
 */
import type { Clock } from '../../core/clock.js';
import type { PinRecordStore } from './file-pin-store.js';
import type { KeyRing } from './key-ring.js';

/**
 * Persistent storage of one agent's key ring.
 *
 * A store never regenerates keys by itself: an unreadable or corrupt store is
 * an error (`KEY_STORE_IO` / `KEY_STORE_CORRUPT`, naming the file), because
 * silently replacing keys would lose every message wrapped to the old ones.
 */
export interface KeyStore {
  /**
   * Reads the ring; `undefined` when nothing is stored. Retired generations
   * whose grace ended are erased (and the pruned ring written back).
   *
   * @throws {@link index!CryptoError | CryptoError} `KEY_STORE_CORRUPT` or `KEY_STORE_IO`.
   */
  load(): Promise<KeyRing | undefined>;
  /**
   * Replaces the stored ring atomically: afterwards a load sees either the old or the new ring.
   *
   * @throws {@link index!CryptoError | CryptoError} `KEY_STORE_IO`.
   */
  save(ring: KeyRing): Promise<void>;
  /**
   * Erases the stored ring (e.g. after `AGENT_KEYS_MISMATCH`, so keys are regenerated and re-registered).
   *
   * @throws {@link index!CryptoError | CryptoError} `KEY_STORE_IO`.
   */
  wipe(): Promise<void>;
  /**
   * Saves `ring` only when nothing is stored yet, atomically with respect to
   * every other writer of the same storage (a compare-and-set): `true` when
   * this call stored it, `false` when a ring was already there (load it).
   * Several first-time copies of one agent starting on one shared, empty
   * store then agree on a single key set: one wins, the others load its keys.
   * Optional: without it {@link loadOrCreateKeys} falls back to load-then-save,
   * which is safe for one copy only.
   *
   * @throws {@link index!CryptoError | CryptoError} `KEY_STORE_IO`.
   */
  saveIfAbsent?(ring: KeyRing): Promise<boolean>;
  /**
   * Where peers' pinned public keys persist with this store (`FileKeyStore`
   * has one); absent for a store that does not persist (pins then live in memory).
   */
  pinStore?(): PinRecordStore;
}

/** Options every built-in key store takes. */
export interface KeyStoreOptions {
  /**
   * Time source for erasing expired generations on load.
   * @defaultValue `systemClock`
   */
  clock?: Clock;
}

/**
 * Load step shared by the stores: prune expired generations and write the
 * pruned ring back, so erased keys leave the storage too.
 */
export async function pruneOnLoad(
  ring: KeyRing,
  clock: Clock,
  save: (ring: KeyRing) => Promise<void>,
): Promise<KeyRing> {
  const pruned = ring.prune(clock.now());
  if (pruned !== ring) await save(pruned);
  return pruned;
}
