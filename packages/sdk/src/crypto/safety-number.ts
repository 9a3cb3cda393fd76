/**
 * Safety numbers: a short numeric fingerprint of two parties' identity keys,
 * compared out of band (read aloud, or side by side on two screens) to detect
 * a service that handed out a key of its own.
 *
 * Construction (Signal's "numeric fingerprint", version 0 of ours):
 * - per party, `K = signing ‖ encryption ‖ r₁ ‖ … ‖ rₙ`, where `rᵢ` are the
 *   X25519 keys of its retired generations still in grace (every key a sender
 *   would wrap to besides the current one), sorted bytewise; `n` is 0 for a
 *   party without any, so its number is unchanged from before;
 * - `h₀ = SHA-512(0x00 0x00 ‖ K ‖ UTF-8(id))`, then
 *   `hᵢ = SHA-512(hᵢ₋₁ ‖ K)` for {@link SAFETY_NUMBER_ITERATIONS} rounds;
 * - the first 30 bytes of the result, as six 5-byte big-endian chunks, each
 *   `mod 100000` written as 5 digits: a 30-digit half;
 * - the two halves sorted (string order) and concatenated: 60 digits, shown in
 *   12 groups of 5. Both parties compute the same number, whatever the order.
 *
 * @module
 */
import { sha512 } from '@noble/hashes/sha2.js';
import { concatBytes, utf8 } from '../core/encoding.js';

/** Rounds of SHA-512 per party (Signal's value). */
export const SAFETY_NUMBER_ITERATIONS = 5200;

/** One party's identity: its id and public keys. */
export interface SafetyNumberParty {
  /** The principal id (user or agent). */
  readonly id: string;
  /** Ed25519 public key (32 bytes); undefined for a user without a signing key. */
  readonly signing: Uint8Array | undefined;
  /** X25519 public key (32 bytes). */
  readonly encryption: Uint8Array;
  /**
   * X25519 keys (32 bytes each) of retired generations a sender still wraps
   * to: they are part of the number, so a key added to what senders wrap to
   * changes it. @defaultValue none
   */
  readonly retired?: readonly Uint8Array[];
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

const VERSION = Uint8Array.of(0, 0);

/**
 * The 30-digit fingerprint of one party's keys.
 *
 * @example
 * ```ts
 * fingerprint({ id: 'agent-1', signing, encryption }); // '12345678901234567890…' (30 digits)
 * ```
 */
export function fingerprint(party: SafetyNumberParty): string {
  const retired = [...(party.retired ?? [])].sort(compareBytes);
  const keys = concatBytes(party.signing ?? new Uint8Array(32), party.encryption, ...retired);
  let h = sha512(concatBytes(VERSION, keys, utf8(party.id)));
  for (let i = 0; i < SAFETY_NUMBER_ITERATIONS; i += 1) h = sha512(concatBytes(h, keys));
  let out = '';
  for (let c = 0; c < 6; c += 1) {
    let n = 0;
    for (let b = 0; b < 5; b += 1) n = n * 256 + h[c * 5 + b]!;
    out += String(n % 100_000).padStart(5, '0');
  }
  return out;
}

/**
 * The 60-digit safety number of two parties, in 12 groups of 5 separated by
 * spaces; the same whichever party is `a`.
 *
 * @example
 * ```ts
 * const number = safetyNumber(me, peer); // '05381 99210 … 44012'
 * ```
 */
export function safetyNumber(a: SafetyNumberParty, b: SafetyNumberParty): string {
  const digits = [fingerprint(a), fingerprint(b)].sort().join('');
  return digits.match(/\d{5}/g)!.join(' ');
}
