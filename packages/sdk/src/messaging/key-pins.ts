/**
 * Peers' key sets, pinned on first use and grown only by signed statements.
 *
 * - **First answer**: the current generation is pinned, nothing else. Retired
 *   generations the service lists are not trusted (nothing vouches for them:
 *   the service could list a "retired" key of its own), so they are neither
 *   wrapped to nor accepted as signers.
 * - **Rotation**: a new current generation is accepted silently only when a
 *   chain of key succession statements (`crypto/key-statement.ts`), each signed
 *   by the generation it replaces, leads from the pinned generation to it.
 *   The replaced generation becomes retired, at the time the peer dated the
 *   statement, but never later than when this client first saw the successor
 *   (the service cannot choose `retired_at`). It is used for
 *   {@link DEFAULT_KEY_DIRECTORY}.retiredGraceMs after that, and only while the
 *   service still lists it.
 * - **Key change** (no valid chain: an emergency rotation, a lost key, or a
 *   substitution, which cannot be told apart): the policy decides
 *   (`keyChangePolicy`): `'warn'` (default) accepts the new keys, re-pins them
 *   and reports the change; `'block'` refuses the peer's keys (a
 *   {@link CryptoError} `KEY_CHANGED`) until {@link KeyPins.confirmKey}. Once
 *   accepted, the old generation and every retired one are **dead**: never
 *   wrapped to, never accepted as signers, whatever the service lists later.
 * - A retired key the service lists without a statement (a ghost), or a dead
 *   key it lists again, is left out and reported once (`onKeyRefused`).
 *
 * Pins are validated when read from the store (a malformed record is a
 * {@link CryptoError} `KEY_STORE_CORRUPT`: dropping it would make the next
 * answer a first answer). Records hold public keys only.
 *
 * @module
 */
import * as z from '../core/lazy-zod.js';
import { systemClock, type Clock } from '../core/clock.js';
import { fromBase64, toBase64 } from '../core/encoding.js';
import { CryptoError } from '../core/errors/crypto-error.js';
import { keyStatementFromWire, verifyKeyStatement, type KeyStatement } from '../crypto/key-statement.js';
import { keyFingerprint } from '../crypto/keys.js';
import { fingerprint } from '../crypto/safety-number.js';
import { DEFAULT_KEY_DIRECTORY, type PeerKeys, type RetiredPeerKey } from './key-directory.js';

/** What to do when a peer's keys changed since they were pinned. */
export type KeyChangePolicy = 'warn' | 'block';

/** A pinned generation (base64 keys, as stored). */
export interface PinnedKeys {
  /** Ed25519 public key, base64; null when the peer had none. */
  readonly signing: string | null;
  /** X25519 public key, base64. */
  readonly encryption: string;
}

/** A retired generation a statement vouched for, with the retirement time this client honours. */
export interface RetiredPin extends PinnedKeys {
  /** min(the peer's date on the statement, this client's first sight of the successor), ms since the epoch. */
  readonly retiredAtMs: number;
}

/** What is stored per peer (version 2; a version 1 record `{ current, known }` is read as `current` with `known` dead). */
export interface PinRecord {
  /** The pinned current keys. */
  readonly current: PinnedKeys;
  /** Generation number of `current`, when known. */
  readonly generation: number | null;
  /** Retired generations vouched for by statements, newest first, at most 16. */
  readonly retired: readonly RetiredPin[];
  /** Generations killed by an accepted key change, at most 64: never trusted again. */
  readonly dead: readonly PinnedKeys[];
}

/**
 * Where pins are kept: memory by default; `FileKeyStore.pinStore()` keeps them
 * across restarts. `get` may return anything stored: {@link KeyPins} validates it.
 */
export interface KeyPinStore {
  get(peerId: string): Promise<unknown> | unknown;
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

/** Payload of the `keyRefused` event: a key the service listed that no trusted key vouches for. */
export interface KeyRefusedEvent {
  readonly peerId: string;
  /** `key_id` (16 hex) of the refused X25519 key. */
  readonly keyId: string;
  /** `'unvouched'`: a retired key with no valid statement; `'dead'`: a generation killed by a key change. */
  readonly reason: 'unvouched' | 'dead';
}

/** Options of {@link KeyPins}. */
export interface KeyPinsOptions {
  /** @defaultValue `'warn'` */
  policy?: KeyChangePolicy;
  /** @defaultValue an in-memory store */
  store?: KeyPinStore;
  /** Time source of first sights and grace. @defaultValue `systemClock` */
  clock?: Clock;
  /** Called once per detected change (per distinct new key). */
  onKeyChanged?: (event: KeyChangedEvent) => void;
  /** Called once per refused key (per peer and key, per process). */
  onKeyRefused?: (event: KeyRefusedEvent) => void;
}

const MAX_RETIRED = 16;
const MAX_DEAD = 64;
/** Statements followed at most in one chain. */
const MAX_CHAIN = 16;
/** Refused keys (each reported once) and records kept in memory; forgotten all at once beyond this. */
const MAX_REPORTED = 10_000;

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

const B64 = z.string().max(64);
const PinnedSchema = z.object({ signing: B64.nullable(), encryption: B64 });
const RecordV2Schema = z.object({
  current: PinnedSchema,
  generation: z.number().int().nullable(),
  retired: z.array(PinnedSchema.extend({ retiredAtMs: z.number().int().nonnegative() })).max(MAX_RETIRED),
  dead: z.array(PinnedSchema).max(MAX_DEAD),
});
const RecordV1Schema = z.object({ current: PinnedSchema, known: z.array(PinnedSchema).max(MAX_RETIRED) });

const same = (a: PinnedKeys, b: PinnedKeys): boolean =>
  a.signing === b.signing && a.encryption === b.encryption;
const sameEncryption = (a: PinnedKeys, b: PinnedKeys): boolean => a.encryption === b.encryption;

/** Parses a stored record (version 2, or version 1 migrated). */
export function parsePinRecord(peerId: string, value: unknown): PinRecord | undefined {
  if (value === undefined || value === null) return undefined;
  const v2 = RecordV2Schema.safeParse(value);
  if (v2.success) return v2.data;
  const v1 = RecordV1Schema.safeParse(value);
  if (v1.success) {
    const { current, known } = v1.data;
    return { current, generation: null, retired: [], dead: known.filter((k) => !same(k, current)) };
  }
  throw new CryptoError({
    code: 'KEY_STORE_CORRUPT',
    message: `The pinned keys of ${peerId} are malformed.`,
  });
}

const pinOf = (signing: Uint8Array | undefined, encryption: Uint8Array): PinnedKeys => ({
  signing: signing === undefined ? null : toBase64(signing),
  encryption: toBase64(encryption),
});
const fingerprintOf = (peerId: string, p: PinnedKeys): string =>
  fingerprint({
    id: peerId,
    signing: p.signing === null ? undefined : fromBase64(p.signing)!,
    encryption: fromBase64(p.encryption)!,
  });
const keyIdOf = (p: PinnedKeys): string => keyFingerprint(fromBase64(p.encryption)!);

/** Pinned keys per peer, checked on every key lookup. */
export class KeyPins {
  readonly policy: KeyChangePolicy;
  readonly #store: KeyPinStore;
  readonly #clock: Clock;
  readonly #onChanged: ((event: KeyChangedEvent) => void) | undefined;
  readonly #onRefused: ((event: KeyRefusedEvent) => void) | undefined;
  /** Changes refused under `'block'`, waiting for `confirmKey`. */
  readonly #pending = new Map<string, { keys: PinnedKeys; generation: number | null }>();
  /** `peerId key` already reported as refused. */
  readonly #reported = new Set<string>();
  /** Records read or written by this instance (validated once, not on every look-up). */
  readonly #records = new Map<string, PinRecord>();

  constructor(options: KeyPinsOptions = {}) {
    this.policy = options.policy ?? 'warn';
    this.#store = options.store ?? new MemoryKeyPinStore();
    this.#clock = options.clock ?? systemClock;
    this.#onChanged = options.onKeyChanged;
    this.#onRefused = options.onKeyRefused;
  }

  /** The pin of a peer, if any. @throws {@link CryptoError} `KEY_STORE_CORRUPT` for a malformed stored record. */
  async pinned(peerId: string): Promise<PinRecord | undefined> {
    const known = this.#records.get(peerId);
    if (known !== undefined) return known;
    const record = parsePinRecord(peerId, await this.#store.get(peerId));
    if (record !== undefined) this.#remember(peerId, record);
    return record;
  }

  #remember(peerId: string, record: PinRecord): void {
    if (this.#records.size >= MAX_REPORTED && !this.#records.has(peerId)) this.#records.clear();
    this.#records.set(peerId, record);
  }

  async #save(peerId: string, record: PinRecord): Promise<void> {
    await this.#store.set(peerId, record);
    this.#remember(peerId, record);
  }

  /**
   * Checks keys the service answered against the pin: pins the current
   * generation on first use, follows signed statements to a new generation,
   * reports (and under `'block'` refuses) an unvouched change, and returns the
   * keys with `retired` replaced by the vouched generations still in grace.
   *
   * @throws {@link CryptoError} `KEY_CHANGED` under `'block'` until `confirmKey`.
   */
  async check(keys: PeerKeys): Promise<PeerKeys> {
    const id = keys.id;
    const now = pinOf(keys.signing, keys.encryption);
    let record = await this.pinned(id);
    if (record === undefined) {
      record = { current: now, generation: keys.generation ?? null, retired: [], dead: [] };
      await this.#save(id, record);
      return { ...keys, retired: [] };
    }
    if (!same(record.current, now)) {
      record = (await this.#follow(id, record, now, keys)) ?? (await this.#changed(id, record, now, keys));
    }
    return { ...keys, retired: this.#retiredInGrace(id, record, keys) };
  }

  /** The chain of statements from the pinned generation to `now`, applied; undefined when there is none. */
  async #follow(
    id: string,
    record: PinRecord,
    now: PinnedKeys,
    keys: PeerKeys,
  ): Promise<PinRecord | undefined> {
    if (keys.statements === undefined || keys.statements.length === 0) return undefined;
    const statements = keys.statements.map(keyStatementFromWire);
    const sightMs = this.#clock.now();
    let cur = record.current;
    let generation = record.generation;
    const retired: RetiredPin[] = [];
    for (let step = 0; step < MAX_CHAIN; step += 1) {
      const signing = cur.signing === null ? undefined : fromBase64(cur.signing)!;
      if (signing === undefined) return undefined;
      const previous = { signing, encryption: fromBase64(cur.encryption)! };
      const next = statements.find(
        (s: KeyStatement) =>
          s.subject === id &&
          (generation === null || s.generation > generation) &&
          verifyKeyStatement(s, previous),
      );
      if (next === undefined) return undefined;
      const nextPin = pinOf(next.signing, next.encryption);
      if (record.dead.some((d) => sameEncryption(d, nextPin))) return undefined;
      retired.unshift({ ...cur, retiredAtMs: Math.min(next.issuedAtMs, sightMs) });
      cur = nextPin;
      generation = next.generation;
      if (same(cur, now)) {
        const updated: PinRecord = {
          current: now,
          generation,
          retired: [...retired, ...record.retired].slice(0, MAX_RETIRED),
          dead: record.dead,
        };
        await this.#save(id, updated);
        return updated;
      }
    }
    return undefined;
  }

  #retiredInGrace(id: string, record: PinRecord, keys: PeerKeys): RetiredPeerKey[] {
    const nowMs = this.#clock.now();
    const out: RetiredPeerKey[] = [];
    for (const listed of keys.retired) {
      const pin = pinOf(listed.signing, listed.encryption);
      const vouched = record.retired.find((r) => sameEncryption(r, pin));
      if (vouched === undefined) {
        const dead = record.dead.some((d) => sameEncryption(d, pin)) || sameEncryption(record.current, pin);
        this.#refused(id, pin, dead ? 'dead' : 'unvouched');
        continue;
      }
      const bound = vouched.retiredAtMs + DEFAULT_KEY_DIRECTORY.retiredGraceMs;
      const until = Math.min(bound, listed.validUntilMs ?? bound);
      if (until <= nowMs) continue;
      out.push({
        encryption: fromBase64(vouched.encryption)!,
        signing: vouched.signing === null ? undefined : fromBase64(vouched.signing)!,
        validUntilMs: until,
        retiredAtMs: vouched.retiredAtMs,
      });
    }
    return out;
  }

  #refused(peerId: string, pin: PinnedKeys, reason: KeyRefusedEvent['reason']): void {
    const tag = `${peerId} ${pin.encryption}`;
    if (this.#reported.has(tag)) return;
    if (this.#reported.size >= MAX_REPORTED) this.#reported.clear();
    this.#reported.add(tag);
    this.#onRefused?.({ peerId, keyId: keyIdOf(pin), reason });
  }

  async #changed(peerId: string, record: PinRecord, now: PinnedKeys, keys: PeerKeys): Promise<PinRecord> {
    const pending = this.#pending.get(peerId);
    const fresh = pending === undefined || !same(pending.keys, now);
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
    if (this.policy === 'warn') return this.#repin(peerId, record, now, keys.generation ?? null);
    this.#pending.set(peerId, { keys: now, generation: keys.generation ?? null });
    throw new CryptoError({
      code: 'KEY_CHANGED',
      message: `The keys of ${peerId} changed since they were pinned; compare safety numbers and call confirmKey().`,
    });
  }

  /** Accepts an unvouched change: the new keys become current, every earlier generation dead. */
  async #repin(
    peerId: string,
    record: PinRecord,
    now: PinnedKeys,
    generation: number | null,
  ): Promise<PinRecord> {
    const killed = [
      record.current,
      ...record.retired.map((r) => ({ signing: r.signing, encryption: r.encryption })),
    ];
    const dead = [...killed, ...record.dead].filter((d) => !sameEncryption(d, now)).slice(0, MAX_DEAD);
    const updated: PinRecord = { current: now, generation, retired: [], dead };
    await this.#save(peerId, updated);
    return updated;
  }

  /**
   * Accepts the change refused for `peerId` (under `'block'`): its new keys are
   * pinned and every earlier generation is dead. Returns false when no change was waiting.
   */
  async confirmKey(peerId: string): Promise<boolean> {
    const next = this.#pending.get(peerId);
    const record = await this.pinned(peerId);
    if (next === undefined || record === undefined) return false;
    await this.#repin(peerId, record, next.keys, next.generation);
    this.#pending.delete(peerId);
    return true;
  }
}
