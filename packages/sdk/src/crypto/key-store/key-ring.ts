/**
 * The key ring: the agent's current key generation plus retired X25519 pairs
 * that still open messages during a grace period.
 *
 * After a normal token regeneration the service keeps the old public key
 * valid for 7 days ({@link LIMITS.TOKEN_GRACE_MS}), so envelopes wrapped to
 * it keep arriving; the ring keeps the old X25519 pair until `notAfter` and
 * offers it to `open` through {@link KeyRing.candidates}. An emergency
 * regeneration uses a grace of 0: the old pair is dropped at once.
 *
 * Pure and immutable: every change returns a new ring. Times are
 * milliseconds since the Unix epoch, read by the caller from a Clock.
 *
 * @module
 */
import { LIMITS } from '../../core/limits.js';
import { ValidationError } from '../../core/errors/validation-error.js';
import { keyFingerprint, type AgentKeys, type KeyPair } from '../keys.js';

/** The generation in use: both pairs. */
export interface CurrentKeyGeneration {
  /** X25519 (encryption) and Ed25519 (signing) pairs. */
  readonly keys: AgentKeys;
  /** When this generation was created, ms since the epoch. */
  readonly createdAt: number;
}

/**
 * A replaced generation kept for its grace period. Only the X25519 pair is
 * kept: old envelopes need it to open, while the old signing key has no use
 * left and is erased at rotation.
 */
export interface RetiredKeyGeneration {
  /** The old X25519 pair. */
  readonly encryption: KeyPair;
  /** When the generation was created, ms since the epoch. */
  readonly createdAt: number;
  /** When it was replaced, ms since the epoch. */
  readonly retiredAt: number;
  /** End of the grace period (exclusive): from this instant on it is erased. */
  readonly notAfter: number;
}

function invalid(path: string, message: string): ValidationError {
  return new ValidationError({
    message: `Key ring: ${path} ${message}`,
    issues: [{ path: [path], message }],
  });
}

function checkTime(value: number, path: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw invalid(path, 'must be a non-negative integer of ms');
}

function sameKey(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * The current key generation and the retired ones still in grace.
 *
 * @example
 * ```ts
 * let ring = KeyRing.create(generateKeys(), clock.now());
 * ring = ring.rotate(generateKeys(), clock.now()); // old pair kept 7 days
 * open(envelope, ring.candidates(clock.now()));
 * ```
 */
export class KeyRing {
  /** The generation in use. */
  readonly current: CurrentKeyGeneration;
  /** Retired generations, newest first. May include expired ones until {@link KeyRing.prune}. */
  readonly retired: readonly RetiredKeyGeneration[];

  private constructor(current: CurrentKeyGeneration, retired: readonly RetiredKeyGeneration[]) {
    this.current = Object.freeze({ ...current });
    this.retired = Object.freeze(
      [...retired].map((g) => Object.freeze({ ...g })).sort((a, b) => b.retiredAt - a.retiredAt),
    );
  }

  /** A ring holding one generation, created at `now`. */
  static create(keys: AgentKeys, now: number): KeyRing {
    checkTime(now, 'now');
    return new KeyRing({ keys, createdAt: now }, []);
  }

  /**
   * Rebuilds a ring from stored generations (used by the key stores).
   *
   * @throws {@link index!ValidationError | ValidationError} on negative or fractional times, or a retired
   *   generation whose X25519 public key repeats the current one or another.
   */
  static fromGenerations(current: CurrentKeyGeneration, retired: readonly RetiredKeyGeneration[]): KeyRing {
    checkTime(current.createdAt, 'current.createdAt');
    const seen = [current.keys.encryption.publicKey];
    retired.forEach((g, i) => {
      checkTime(g.createdAt, `retired.${i}.createdAt`);
      checkTime(g.retiredAt, `retired.${i}.retiredAt`);
      checkTime(g.notAfter, `retired.${i}.notAfter`);
      if (seen.some((k) => sameKey(k, g.encryption.publicKey)))
        throw invalid(`retired.${i}`, 'repeats a key');
      seen.push(g.encryption.publicKey);
    });
    return new KeyRing(current, retired);
  }

  /**
   * The X25519 pairs that may open an envelope at `now`: the current pair
   * first, then retired pairs with `now < notAfter`, newest first. Pass it
   * to the envelope `open`.
   */
  candidates(now: number): readonly KeyPair[] {
    return [
      this.current.keys.encryption,
      ...this.retired.filter((g) => now < g.notAfter).map((g) => g.encryption),
    ];
  }

  /**
   * Makes `newKeys` current. The old X25519 pair is kept until
   * `now + graceMs`; with `graceMs` 0 (emergency regeneration) it is dropped.
   * Expired generations are pruned on the way.
   *
   * @param graceMs - @defaultValue `LIMITS.TOKEN_GRACE_MS` (7 days)
   * @throws {@link index!ValidationError | ValidationError} when `newKeys` are the current keys, or `now`/`graceMs` are not non-negative integers.
   */
  rotate(newKeys: AgentKeys, now: number, graceMs: number = LIMITS.TOKEN_GRACE_MS): KeyRing {
    checkTime(now, 'now');
    checkTime(graceMs, 'graceMs');
    checkTime(now + graceMs, 'now + graceMs');
    const old = this.current;
    if (sameKey(newKeys.encryption.publicKey, old.keys.encryption.publicKey)) {
      throw invalid('newKeys', 'are the current keys');
    }
    const kept = this.retired.filter(
      (g) => now < g.notAfter && !sameKey(g.encryption.publicKey, newKeys.encryption.publicKey),
    );
    const retiring: RetiredKeyGeneration[] =
      graceMs > 0
        ? [
            {
              encryption: old.keys.encryption,
              createdAt: old.createdAt,
              retiredAt: now,
              notAfter: now + graceMs,
            },
          ]
        : [];
    return new KeyRing({ keys: newKeys, createdAt: now }, [...retiring, ...kept]);
  }

  /** Drops retired generations whose grace ended (`notAfter <= now`). Returns `this` when none did. */
  prune(now: number): KeyRing {
    const kept = this.retired.filter((g) => now < g.notAfter);
    return kept.length === this.retired.length ? this : new KeyRing(this.current, kept);
  }

  /** A secret-free summary (fingerprints and times), so logging a ring never prints a private key. */
  toJSON(): Record<string, unknown> {
    return {
      current: {
        fingerprint: keyFingerprint(this.current.keys.encryption.publicKey),
        createdAt: this.current.createdAt,
      },
      retired: this.retired.map((g) => ({
        fingerprint: keyFingerprint(g.encryption.publicKey),
        retiredAt: g.retiredAt,
        notAfter: g.notAfter,
      })),
    };
  }

  /** Node's `util.inspect` (and so `console.log`) shows the secret-free summary. */
  [Symbol.for('nodejs.util.inspect.custom')](): Record<string, unknown> {
    return this.toJSON();
  }
}
