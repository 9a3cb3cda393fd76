/**
 * Trust on first use for peers' keys. The first keys the service shows for a
 * peer are pinned; a later answer whose current signing or encryption key
 * differs is a **key change**, whatever the answer says about rotation: the
 * service is the party this guards against, and nothing the old key signed
 * vouches for the new one, so a rotation cannot be told from a substitution.
 *
 * Policy (`keyChangePolicy`): `'warn'` (default) accepts the new keys,
 * re-pins them and reports the change; `'block'` refuses the peer's keys
 * (a {@link CryptoError} `KEY_CHANGED`) until {@link KeyPins.confirmKey}.
 *
 * Retired generations: the first answer's are pinned with it; later, only
 * generations the pin already knows (former current keys, or first-answer
 * retired keys) are kept, so the service cannot slip an extra key in through
 * `retired` without a key change being reported.
 *
 * @module
 */
import { fromBase64, toBase64 } from '../core/encoding.js';
import { CryptoError } from '../core/errors/crypto-error.js';
import { fingerprint } from '../crypto/safety-number.js';
import type { PeerKeys } from './key-directory.js';

/** What to do when a peer's keys changed since they were pinned. */
export type KeyChangePolicy = 'warn' | 'block';

/** A pinned generation (base64 keys, as stored). */
export interface PinnedKeys {
  /** Ed25519 public key, base64; null when the peer had none. */
  readonly signing: string | null;
  /** X25519 public key, base64. */
  readonly encryption: string;
}

/** What is stored per peer. */
export interface PinRecord {
  /** The pinned current keys. */
  readonly current: PinnedKeys;
  /** Every generation seen for this peer (current ones included), oldest first, at most 16. */
  readonly known: readonly PinnedKeys[];
}

/** Where pins are kept: memory by default; implement it to keep pins across restarts. */
export interface KeyPinStore {
  get(peerId: string): Promise<PinRecord | undefined> | PinRecord | undefined;
  set(peerId: string, record: PinRecord): Promise<void> | void;
}

/** Payload of the `keyChanged` event. */
export interface KeyChangedEvent {
  readonly peerId: string;
  /** The pinned keys. */
  readonly previous: PinnedKeys;
  /** The keys the service shows now. */
  readonly current: PinnedKeys;
  /** 30-digit fingerprints of the previous and current keys (see `fingerprint`). */
  readonly fingerprints: { readonly previous: string; readonly current: string };
  /** `'warn'`: already accepted and re-pinned; `'block'`: refused until `confirmKey`. */
  readonly policy: KeyChangePolicy;
}

/** Options of {@link KeyPins}. */
export interface KeyPinsOptions {
  /** @defaultValue `'warn'` */
  policy?: KeyChangePolicy;
  /** @defaultValue an in-memory store */
  store?: KeyPinStore;
  /** Called once per detected change (per distinct new key). */
  onKeyChanged?: (event: KeyChangedEvent) => void;
}

const MAX_KNOWN = 16;

/** An in-memory {@link KeyPinStore}. */
export class MemoryKeyPinStore implements KeyPinStore {
  readonly #pins = new Map<string, PinRecord>();
  get(peerId: string): PinRecord | undefined {
    return this.#pins.get(peerId);
  }
  set(peerId: string, record: PinRecord): void {
    this.#pins.set(peerId, record);
  }
}

const pinOf = (signing: Uint8Array | undefined, encryption: Uint8Array): PinnedKeys => ({
  signing: signing === undefined ? null : toBase64(signing),
  encryption: toBase64(encryption),
});
const same = (a: PinnedKeys, b: PinnedKeys): boolean =>
  a.signing === b.signing && a.encryption === b.encryption;
const fingerprintOf = (peerId: string, p: PinnedKeys): string =>
  fingerprint({
    id: peerId,
    signing: p.signing === null ? undefined : fromBase64(p.signing)!,
    encryption: fromBase64(p.encryption)!,
  });

/** Pinned keys per peer, checked on every key lookup. */
export class KeyPins {
  readonly policy: KeyChangePolicy;
  readonly #store: KeyPinStore;
  readonly #onChanged: ((event: KeyChangedEvent) => void) | undefined;
  /** Changes refused under `'block'`, waiting for `confirmKey`. */
  readonly #pending = new Map<string, PinnedKeys>();

  constructor(options: KeyPinsOptions = {}) {
    this.policy = options.policy ?? 'warn';
    this.#store = options.store ?? new MemoryKeyPinStore();
    this.#onChanged = options.onKeyChanged;
  }

  /** The pin of a peer, if any. */
  async pinned(peerId: string): Promise<PinRecord | undefined> {
    return this.#store.get(peerId);
  }

  /**
   * Checks keys the service answered against the pin: pins on first use,
   * filters unknown retired generations, and reports (and under `'block'`
   * refuses) a change.
   *
   * @throws {@link CryptoError} `KEY_CHANGED` under `'block'` until `confirmKey`.
   */
  async check(keys: PeerKeys): Promise<PeerKeys> {
    const id = keys.id;
    const now = pinOf(keys.signing, keys.encryption);
    const record = await this.#store.get(id);
    if (record === undefined) {
      const known = [...keys.retired.map((r) => pinOf(r.signing, r.encryption)).reverse(), now];
      await this.#store.set(id, { current: now, known: known.slice(-MAX_KNOWN) });
      return keys;
    }
    if (!same(record.current, now)) await this.#changed(id, record, now);
    const known = (await this.#store.get(id))?.known ?? record.known;
    const retired = keys.retired.filter((r) => known.some((k) => same(k, pinOf(r.signing, r.encryption))));
    return retired.length === keys.retired.length ? keys : { ...keys, retired };
  }

  async #changed(peerId: string, record: PinRecord, now: PinnedKeys): Promise<void> {
    const pending = this.#pending.get(peerId);
    const fresh = pending === undefined || !same(pending, now);
    if (fresh) {
      this.#onChanged?.({
        peerId,
        previous: record.current,
        current: now,
        fingerprints: {
          previous: fingerprintOf(peerId, record.current),
          current: fingerprintOf(peerId, now),
        },
        policy: this.policy,
      });
    }
    if (this.policy === 'warn') {
      await this.#repin(peerId, record, now);
      return;
    }
    this.#pending.set(peerId, now);
    throw new CryptoError({
      code: 'KEY_CHANGED',
      message: `The keys of ${peerId} changed since they were pinned; compare safety numbers and call confirmKey().`,
    });
  }

  async #repin(peerId: string, record: PinRecord, now: PinnedKeys): Promise<void> {
    const known = [...record.known.filter((k) => !same(k, now)), now].slice(-MAX_KNOWN);
    await this.#store.set(peerId, { current: now, known });
  }

  /**
   * Accepts the change refused for `peerId` (under `'block'`): its new keys are
   * pinned. Returns false when no change was waiting.
   */
  async confirmKey(peerId: string): Promise<boolean> {
    const next = this.#pending.get(peerId);
    const record = await this.#store.get(peerId);
    if (next === undefined || record === undefined) return false;
    await this.#repin(peerId, record, next);
    this.#pending.delete(peerId);
    return true;
  }
}
