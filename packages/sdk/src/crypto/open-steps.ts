/**
 * The steps of `open` after parsing, shared by `open` and `openAsync`: find the
 * wrap, unwrap the content key, decrypt, parse. Each returns a result or the
 * {@link CryptoError} of the step that failed; none throws.
 *
 * @module
 */
import { isCryptoError, type CryptoError, type DecryptFailureReason } from '../core/errors/index.js';
import type { CryptoBackend, SyncPrimitives } from './backend/types.js';
import { decryptFailure } from './envelope-errors.js';
import { SIZES, type ParsedEnvelope } from './envelope-format.js';
import {
  constantTimeEqual,
  deriveCommitted,
  deriveCommittedAsync,
  deriveKek,
  deriveKekAsync,
  WRAP_NONCE,
  wrapExpandInput,
  wrapSalt,
  type CommittedKeys,
} from './key-schedule.js';
import { fingerprintBytes, type KeyPair } from './keys.js';
import type { OpenedEnvelope } from './open-options.js';
import { decodePayload, type EnvelopePayload } from './payload.js';

/** The wrap chosen for this recipient. */
export interface WrapMatch {
  readonly index: number;
  readonly keyPair: KeyPair;
  readonly wrap: Uint8Array;
}

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The first wrap addressed to `recipientId` under one of the candidate keys. */
export function findWrap(
  env: ParsedEnvelope,
  recipientId: string,
  keys: readonly KeyPair[],
  b: CryptoBackend,
): WrapMatch | undefined {
  const list = env.header.recipients;
  for (let i = 0; i < list.length; i++) {
    const entry = list[i]!;
    if (entry.id !== recipientId) continue;
    const keyPair = keys.find((k) => sameBytes(fingerprintBytes(k.publicKey, b), entry.fingerprint));
    if (keyPair !== undefined) {
      return { index: i, keyPair, wrap: env.wraps.subarray(i * SIZES.wrap, (i + 1) * SIZES.wrap) };
    }
  }
  return undefined;
}

/** The public result of an envelope that verified and decrypted, without its payload. */
export function openedMetadata(env: ParsedEnvelope, match: WrapMatch): Omit<OpenedEnvelope, 'payload'> {
  const h = env.header;
  return {
    senderId: h.senderId,
    conversationId: h.conversationId,
    messageId: h.messageId,
    createdAt: h.createdAt,
    recipients: h.recipients.map((r) => ({ id: r.id, fingerprint: hex(r.fingerprint) })),
    keyFingerprint: hex(env.header.recipients[match.index]!.fingerprint),
    version: env.minor === 1 ? '1.1' : '1.0',
    eventType: h.eventType,
  };
}

/** The public result of an envelope that verified and decrypted. */
export function opened(env: ParsedEnvelope, payload: EnvelopePayload, match: WrapMatch): OpenedEnvelope {
  return { payload, ...openedMetadata(env, match) };
}

/** The failure of a v1.1 commitment that does not match the unwrapped key (reported as `aead`). */
function commitmentMismatch() {
  return decryptFailure('aead', undefined, 'the key commitment does not match the content key');
}

/** v1.1: the committed AEAD key when the commitment matches; v1.0: the content key itself. */
function aeadKeyOf(env: ParsedEnvelope, contentKey: Uint8Array, committed: CommittedKeys | undefined) {
  if (env.commitment === undefined || committed === undefined) return contentKey;
  return constantTimeEqual(committed.commitment, env.commitment) ? committed.aeadKey : undefined;
}

function unwrapSync(s: SyncPrimitives, env: ParsedEnvelope, m: WrapMatch, headerHash: Uint8Array) {
  const eph = env.header.ephemeralPublicKey;
  const shared = s.x25519(m.keyPair, eph);
  if (shared === undefined) return undefined;
  const kek = deriveKek(s, shared, wrapSalt(eph, m.keyPair.publicKey), wrapExpandInput(headerHash, m.index));
  const contentKey = s.aesGcmDecrypt(kek, WRAP_NONCE, m.wrap, headerHash);
  return contentKey?.length === 32 ? contentKey : undefined;
}

/** A decrypted payload with the wrap that opened it, or the failure. */
export type Decrypted = { readonly payload: EnvelopePayload; readonly match: WrapMatch } | CryptoError;
/** Decrypted plaintext (not parsed yet) with the wrap that opened it, or the failure. */
export type DecryptedBytes = { readonly plaintext: Uint8Array; readonly match: WrapMatch } | CryptoError;

/** The `parse` step: the payload object of decrypted plaintext, or the failure. */
export function parsePlaintext(result: DecryptedBytes): Decrypted {
  if (isCryptoError(result)) return result;
  try {
    const payload = decodePayload(result.plaintext);
    return payload === undefined ? decryptFailure('parse') : { payload, match: result.match };
  } catch (err) {
    return decryptFailure('parse', err);
  }
}

/** no_wrap → unwrap → aead (v1.1: commitment first) on the sync primitives; no parse. */
export function decryptBytesSync(
  b: CryptoBackend,
  s: SyncPrimitives,
  env: ParsedEnvelope,
  recipientId: string,
  keys: readonly KeyPair[],
): DecryptedBytes {
  let step: DecryptFailureReason = 'no_wrap';
  try {
    const match = findWrap(env, recipientId, keys, b);
    if (match === undefined) return decryptFailure('no_wrap');
    step = 'unwrap';
    const headerHash = s.sha256(env.headerBytes);
    const contentKey = unwrapSync(s, env, match, headerHash);
    if (contentKey === undefined) return decryptFailure('unwrap');
    step = 'aead';
    const committed = env.minor === 1 ? deriveCommitted(s, contentKey, headerHash) : undefined;
    const aeadKey = aeadKeyOf(env, contentKey, committed);
    if (aeadKey === undefined) return commitmentMismatch();
    const plaintext = s.aesGcmDecrypt(aeadKey, env.nonce, env.ciphertext, headerHash);
    return plaintext === undefined ? decryptFailure('aead') : { plaintext, match };
  } catch (err) {
    return decryptFailure(step, err);
  }
}

/** no_wrap → unwrap → aead (v1.1: commitment first) → parse on the sync primitives. */
export function decryptSync(
  b: CryptoBackend,
  s: SyncPrimitives,
  env: ParsedEnvelope,
  recipientId: string,
  keys: readonly KeyPair[],
): Decrypted {
  return parsePlaintext(decryptBytesSync(b, s, env, recipientId, keys));
}

/** no_wrap → unwrap → aead (v1.1: commitment first) → parse on the async primitives. */
export async function decryptAsync(
  b: CryptoBackend,
  env: ParsedEnvelope,
  recipientId: string,
  keys: readonly KeyPair[],
) {
  let step: DecryptFailureReason = 'no_wrap';
  try {
    const match = findWrap(env, recipientId, keys, b);
    if (match === undefined) return decryptFailure('no_wrap');
    step = 'unwrap';
    const a = b.async;
    const eph = env.header.ephemeralPublicKey;
    const headerHash = await a.sha256(env.headerBytes);
    const shared = await a.x25519(match.keyPair, eph);
    if (shared === undefined) return decryptFailure('unwrap');
    const salt = wrapSalt(eph, match.keyPair.publicKey);
    const kek = await deriveKekAsync(a, shared, salt, wrapExpandInput(headerHash, match.index));
    const contentKey = await a.aesGcmDecrypt(kek, WRAP_NONCE, match.wrap, headerHash);
    if (contentKey?.length !== 32) return decryptFailure('unwrap');
    step = 'aead';
    const committed = env.minor === 1 ? await deriveCommittedAsync(a, contentKey, headerHash) : undefined;
    const aeadKey = aeadKeyOf(env, contentKey, committed);
    if (aeadKey === undefined) return commitmentMismatch();
    const plaintext = await a.aesGcmDecrypt(aeadKey, env.nonce, env.ciphertext, headerHash);
    if (plaintext === undefined) return decryptFailure('aead');
    step = 'parse';
    const payload = decodePayload(plaintext);
    return payload === undefined ? decryptFailure('parse') : ({ payload, match } as Decrypted);
  } catch (err) {
    return decryptFailure(step, err);
  }
}
