/**
 * Key succession statements: how a peer's key set grows without the service's
 * word. At a normal rotation the peer's **previous** Ed25519 key signs a
 * statement naming the next generation; a client that trusts (has pinned) the
 * previous generation accepts the new one, and retires the previous one, only
 * on such a statement. An emergency rotation has no statement (the old key is
 * presumed stolen, so it cannot vouch): it is a key change for the pin policy.
 *
 * Canonical bytes (all integers big-endian, keys raw 32 bytes):
 *
 * ```
 * "ams/key-succession/v1" ‖ 0x00
 * ‖ u16(len(UTF-8(subject))) ‖ UTF-8(subject)
 * ‖ u32(generation)
 * ‖ public_key (X25519, 32) ‖ signing_public_key (Ed25519, 32)
 * ‖ previous_key_id (8 raw bytes: first 8 bytes of SHA-256 of the previous X25519 key)
 * ‖ u64(issued_at, ms since the epoch)
 * ```
 *
 * `signature = Ed25519-Sign(previous signing key, bytes)`, verified with the
 * SDK's one Ed25519 rule (every backend applies it). The label makes the signature useless as an envelope
 * or key-proof signature and vice versa. Test vectors: docs/keys.md.
 *
 * @module
 */
import { concatBytes, fromBase64, toBase64, utf8 } from '../core/encoding.js';
import type { KeyStatementWire } from '../core/protocol/key-statement.js';
import { defaultSyncBackend } from './backend/node-default.js';
import type { SyncCryptoBackend } from './backend/types.js';
import { keyFingerprint, type KeyPair } from './keys.js';

/** Domain label of the signed bytes. */
export const KEY_STATEMENT_LABEL = 'ams/key-succession/v1';

/** The fields a statement signs (decoded). */
export interface KeyStatementFields {
  /** The principal whose keys these are. */
  readonly subject: string;
  /** The new generation's number (≥ 2). */
  readonly generation: number;
  /** New X25519 public key (32 bytes). */
  readonly encryption: Uint8Array;
  /** New Ed25519 public key (32 bytes). */
  readonly signing: Uint8Array;
  /** `key_id` of the replaced generation (16 hex). */
  readonly previousKeyId: string;
  /** When the peer made the statement (retiring the previous generation), ms since the epoch. */
  readonly issuedAtMs: number;
}

/** A statement with its signature. */
export interface KeyStatement extends KeyStatementFields {
  /** Ed25519 signature (64 bytes) by the previous generation's signing key. */
  readonly signature: Uint8Array;
}

const hexBytes = (hex: string): Uint8Array => {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
};

/**
 * The canonical bytes a statement signs.
 *
 * @throws RangeError for a subject over 65535 bytes, a generation outside 0…2³²−1,
 *   a time outside 0…2⁵³−1, keys that are not 32 bytes, or a malformed `previousKeyId`.
 */
export function keyStatementBytes(f: KeyStatementFields): Uint8Array {
  const subject = utf8(f.subject);
  if (subject.length > 0xffff) throw new RangeError('subject too long');
  if (!Number.isInteger(f.generation) || f.generation < 0 || f.generation > 0xffff_ffff)
    throw new RangeError('generation out of range');
  if (!Number.isSafeInteger(f.issuedAtMs) || f.issuedAtMs < 0)
    throw new RangeError('issuedAtMs out of range');
  if (f.encryption.length !== 32 || f.signing.length !== 32) throw new RangeError('keys must be 32 bytes');
  if (!/^[0-9a-f]{16}$/.test(f.previousKeyId)) throw new RangeError('previousKeyId must be 16 hex');
  const head = new Uint8Array(2);
  new DataView(head.buffer).setUint16(0, subject.length);
  const gen = new Uint8Array(4);
  new DataView(gen.buffer).setUint32(0, f.generation);
  const at = new Uint8Array(8);
  new DataView(at.buffer).setBigUint64(0, BigInt(f.issuedAtMs));
  return concatBytes(
    utf8(KEY_STATEMENT_LABEL),
    Uint8Array.of(0),
    head,
    subject,
    gen,
    f.encryption,
    f.signing,
    hexBytes(f.previousKeyId),
    at,
  );
}

/**
 * Signs a statement with the previous generation's signing pair.
 *
 * @example
 * ```ts
 * const st = signKeyStatement({ subject: agentId, generation: 2, encryption, signing,
 *   previousKeyId: keyFingerprint(old.encryption.publicKey), issuedAtMs: clock.now() }, old.signing);
 * ```
 */
export function signKeyStatement(
  fields: KeyStatementFields,
  previousSigning: KeyPair,
  backend: SyncCryptoBackend = defaultSyncBackend(),
): KeyStatement {
  return { ...fields, signature: backend.sync.ed25519Sign(previousSigning, keyStatementBytes(fields)) };
}

/**
 * True when `statement` is signed by `previous` (that generation's Ed25519 key)
 * and names it (`previousKeyId` is the fingerprint of `previous.encryption`).
 */
export function verifyKeyStatement(
  statement: KeyStatement,
  previous: { readonly signing: Uint8Array; readonly encryption: Uint8Array },
  backend: SyncCryptoBackend = defaultSyncBackend(),
): boolean {
  if (statement.previousKeyId !== keyFingerprint(previous.encryption)) return false;
  let bytes: Uint8Array;
  try {
    bytes = keyStatementBytes(statement);
  } catch {
    return false;
  }
  return backend.sync.ed25519Verify(previous.signing, bytes, statement.signature);
}

/** The wire form of a statement. */
export function keyStatementToWire(s: KeyStatement): KeyStatementWire {
  return {
    v: 1,
    subject: s.subject,
    generation: s.generation,
    public_key: toBase64(s.encryption),
    signing_public_key: toBase64(s.signing),
    previous_key_id: s.previousKeyId,
    issued_at: new Date(s.issuedAtMs).toISOString(),
    signature: toBase64(s.signature),
  };
}

/** Decodes a wire statement already checked by `KeyStatementSchema`. */
export function keyStatementFromWire(w: KeyStatementWire): KeyStatement {
  return {
    subject: w.subject,
    generation: w.generation,
    encryption: fromBase64(w.public_key)!,
    signing: fromBase64(w.signing_public_key)!,
    previousKeyId: w.previous_key_id,
    issuedAtMs: Date.parse(w.issued_at),
    signature: fromBase64(w.signature)!,
  };
}
