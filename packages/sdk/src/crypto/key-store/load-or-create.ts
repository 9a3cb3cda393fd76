/**
 * The two key-store flows an agent runs: start up (load the ring, or create
 * and save the first one) and rotate (after a token regeneration).
 *
 * @module
 */
import { systemClock, type Clock } from '../../core/clock.js';
import { CryptoError } from '../../core/errors/crypto-error.js';
import { LIMITS } from '../../core/limits.js';
import { generateKeys, type AgentKeys } from '../keys.js';
import { KeyRing } from './key-ring.js';
import type { KeyStore } from './key-store.js';

/** Options of {@link loadOrCreateKeys}. */
export interface LoadOrCreateKeysOptions {
  /**
   * Time source for the creation time.
   * @defaultValue `systemClock`
   */
  clock?: Clock;
  /**
   * Makes the first key set.
   * @defaultValue {@link generateKeys}
   */
  generate?: () => AgentKeys;
}

/** What {@link loadOrCreateKeys} returns. */
export interface LoadedKeys {
  /** The ring, expired generations already erased. */
  readonly ring: KeyRing;
  /** True when nothing was stored and new keys were generated and saved: register their public keys. */
  readonly created: boolean;
}

/**
 * Loads the agent's key ring, or, when the store is empty, generates keys and
 * saves a new ring. A corrupt or unreadable store is thrown, never replaced.
 *
 * With a store that has {@link KeyStore.saveIfAbsent} (both built-in stores
 * do), the new ring is saved by compare-and-set: when several copies start on
 * one empty shared store at once, exactly one reports `created: true` and the
 * others load the ring it saved.
 *
 * @throws {@link index!CryptoError | CryptoError} `KEY_STORE_CORRUPT` or `KEY_STORE_IO` (with `file`).
 * @example
 * ```ts
 * const { ring, created } = await loadOrCreateKeys(new FileKeyStore({ directory }));
 * if (created) await uploadPublicKeys(ring.current.keys);
 * ```
 */
export async function loadOrCreateKeys(
  store: KeyStore,
  options: LoadOrCreateKeysOptions = {},
): Promise<LoadedKeys> {
  const existing = await store.load();
  if (existing !== undefined) return { ring: existing, created: false };
  const clock = options.clock ?? systemClock;
  const ring = KeyRing.create((options.generate ?? generateKeys)(), clock.now());
  if (store.saveIfAbsent === undefined) {
    await store.save(ring);
    return { ring, created: true };
  }
  if (await store.saveIfAbsent(ring)) return { ring, created: true };
  // Another copy stored its ring between our load and our save: use that one.
  const winner = await store.load();
  if (winner === undefined) {
    throw new CryptoError({
      code: 'KEY_STORE_IO',
      message: 'The key store refused a new ring as already present, then loaded none',
    });
  }
  return { ring: winner, created: false };
}

/** Options of {@link rotateStoredKeys}. */
export interface RotateStoredKeysOptions {
  /**
   * Time source.
   * @defaultValue `systemClock`
   */
  clock?: Clock;
  /**
   * How long the old X25519 pair keeps opening messages. Use 0 after an emergency regeneration.
   * @defaultValue `LIMITS.TOKEN_GRACE_MS` (7 days)
   */
  graceMs?: number;
  /**
   * The new key set.
   * @defaultValue freshly generated with {@link generateKeys}
   */
  newKeys?: AgentKeys;
}

/**
 * Rotates the stored ring to new keys and saves it; the old pair stays a
 * candidate for `graceMs`. With an empty store, saves a ring of the new keys.
 *
 * @throws {@link index!CryptoError | CryptoError} `KEY_STORE_CORRUPT` or `KEY_STORE_IO`.
 * @throws {@link index!ValidationError | ValidationError} when `graceMs` is not a non-negative integer or `newKeys` are the current keys.
 * @example
 * ```ts
 * const ring = await rotateStoredKeys(store, { graceMs: emergency ? 0 : LIMITS.TOKEN_GRACE_MS });
 * ```
 */
export async function rotateStoredKeys(
  store: KeyStore,
  options: RotateStoredKeysOptions = {},
): Promise<KeyRing> {
  const clock = options.clock ?? systemClock;
  const newKeys = options.newKeys ?? generateKeys();
  const now = clock.now();
  const existing = await store.load();
  const ring =
    existing === undefined
      ? KeyRing.create(newKeys, now)
      : existing.rotate(newKeys, now, options.graceMs ?? LIMITS.TOKEN_GRACE_MS);
  await store.save(ring);
  return ring;
}
