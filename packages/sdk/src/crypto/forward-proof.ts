/**
 * Forward proofs (security issue #24, item 8): a forwarded copy can prove that
 * its original sender really sent what it claims.
 *
 * A recipient of a v1.1 envelope who unwraps it learns its content key `CK`.
 * The envelope's signature covers the key commitment, and the commitment
 * binds `CK` (docs/envelope.md, key schedule step 5). So the original
 * envelope plus `CK` let anyone who receives both, and knows the original
 * sender's signing key, check the signature, check that `CK` is the
 * committed key, and decrypt exactly the plaintext the sender signed, without
 * being one of its recipients:
 *
 * - {@link discloseContentKey}: a recipient recovers `CK` of an envelope it
 *   can open (v1.1 only: a v1.0 envelope commits to no key, so its `CK` proves
 *   nothing).
 * - {@link openDisclosed}: anyone opens an envelope with a disclosed `CK`:
 *   signature → commitment → AES-GCM → parse, the same order and reasons as
 *   `open` (`signature`, `aead`, `parse`).
 *
 * `CK` is fresh per envelope, so disclosing it opens that one message and
 * nothing else; the wraps stay sealed to their recipients.
 *
 * @module
 */
import { isCryptoError, type CryptoError } from '../core/errors/index.js';
import { defaultBackend } from './backend/node-default.js';
import type { CryptoBackend } from './backend/types.js';
import { decryptFailure, invalidEnvelope } from './envelope-errors.js';
import { parseEnvelope, type ParsedEnvelope } from './envelope-format.js';
import { decodeEnvelopeInput, ENVELOPE_INLINE_MAX_BYTES } from './envelope-wire.js';
import {
  constantTimeEqual,
  deriveCommittedAsync,
  deriveKekAsync,
  signedMessage,
  WRAP_NONCE,
  wrapExpandInput,
  wrapSalt,
} from './key-schedule.js';
import type { KeyPair } from './keys.js';
import type { SenderKeyLookup } from './open-options.js';
import { findWrap } from './open-steps.js';
import { decodePayload, type EnvelopePayload } from './payload.js';

/** Bytes of a content key. */
export const CONTENT_KEY_BYTES = 32;

/** What {@link openDisclosed} returns: the payload and the signed header values. */
export interface DisclosedEnvelope {
  /** The decrypted payload object, exactly as its sender sealed it. */
  readonly payload: EnvelopePayload;
  /** The signed sender id. */
  readonly senderId: string;
  /** The signed conversation id. */
  readonly conversationId: string;
  /** The signed message id. */
  readonly messageId: string;
  /** The signed creation time. */
  readonly createdAt: string;
  /** The signed event type (always present: v1.1 only). */
  readonly eventType: string;
}

function parseV11(input: string | Uint8Array, maxBytes: number): ParsedEnvelope {
  let env: ParsedEnvelope;
  try {
    env = parseEnvelope(decodeEnvelopeInput(input, maxBytes));
  } catch (err) {
    throw isCryptoError(err) ? err : invalidEnvelope('unreadable', err);
  }
  if (env.minor !== 1 || env.commitment === undefined) {
    throw invalidEnvelope('a forward proof needs a v1.1 envelope (key commitment)');
  }
  return env;
}

/**
 * The content key of a v1.1 envelope addressed to `recipientId` under one of
 * `keys`, checked against the envelope's key commitment. The signature is
 * not checked here (the envelope was opened, and verified, when it arrived);
 * whoever receives the key checks it with {@link openDisclosed}.
 *
 * @throws {@link index!CryptoError | CryptoError} `INVALID_ENVELOPE` (malformed, or v1.0),
 * `DECRYPT_FAILURE` reason `no_wrap`, `unwrap` or `aead` (commitment mismatch).
 */
export async function discloseContentKey(
  input: string | Uint8Array,
  options: {
    readonly recipientId: string;
    readonly keys: readonly KeyPair[];
    readonly backend?: CryptoBackend;
    readonly maxEnvelopeBytes?: number;
  },
): Promise<Uint8Array> {
  const b = options.backend ?? defaultBackend();
  const env = parseV11(input, options.maxEnvelopeBytes ?? ENVELOPE_INLINE_MAX_BYTES);
  const match = findWrap(env, options.recipientId, options.keys, b);
  if (match === undefined) throw decryptFailure('no_wrap');
  const a = b.async;
  const eph = env.header.ephemeralPublicKey;
  const headerHash = await a.sha256(env.headerBytes);
  const shared = await a.x25519(match.keyPair, eph);
  if (shared === undefined) throw decryptFailure('unwrap');
  const salt = wrapSalt(eph, match.keyPair.publicKey);
  const kek = await deriveKekAsync(a, shared, salt, wrapExpandInput(headerHash, match.index));
  const contentKey = await a.aesGcmDecrypt(kek, WRAP_NONCE, match.wrap, headerHash);
  if (contentKey?.length !== CONTENT_KEY_BYTES) throw decryptFailure('unwrap');
  const committed = await deriveCommittedAsync(a, contentKey, headerHash);
  if (!constantTimeEqual(committed.commitment, env.commitment!)) {
    throw decryptFailure('aead', undefined, 'the key commitment does not match the content key');
  }
  return contentKey;
}

/**
 * Opens a v1.1 envelope with a disclosed content key, as someone who is not
 * among its recipients: verifies the sender's signature (`senderKey`, or a
 * lookup by the signed sender id), checks that `contentKey` is the committed
 * one, decrypts and parses. No plaintext is returned unless all of that holds.
 *
 * @throws {@link index!CryptoError | CryptoError} `INVALID_ENVELOPE` (malformed, or v1.0),
 * `DECRYPT_FAILURE` reason `signature` (unknown sender or bad signature),
 * `aead` (not the committed key, or a failed tag), `parse`.
 */
export async function openDisclosed(
  input: string | Uint8Array,
  contentKey: Uint8Array,
  options: {
    readonly senderKey: Uint8Array | SenderKeyLookup;
    readonly backend?: CryptoBackend;
    readonly maxEnvelopeBytes?: number;
  },
): Promise<DisclosedEnvelope> {
  const b = options.backend ?? defaultBackend();
  const env = parseV11(input, options.maxEnvelopeBytes ?? ENVELOPE_INLINE_MAX_BYTES);
  const a = b.async;
  let key: unknown;
  try {
    const found =
      typeof options.senderKey === 'function' ? options.senderKey(env.header.senderId) : options.senderKey;
    key = found instanceof Uint8Array || found === undefined ? found : await found;
  } catch (err) {
    throw decryptFailure('signature', err);
  }
  const digest = await a.sha256(env.body);
  if (!(key instanceof Uint8Array) || !(await a.ed25519Verify(key, signedMessage(digest), env.signature))) {
    throw decryptFailure('signature');
  }
  const payload = await decryptDisclosed(b, env, contentKey);
  if (isCryptoError(payload)) throw payload;
  const h = env.header;
  return {
    payload,
    senderId: h.senderId,
    conversationId: h.conversationId,
    messageId: h.messageId,
    createdAt: h.createdAt,
    eventType: h.eventType!,
  };
}

async function decryptDisclosed(
  b: CryptoBackend,
  env: ParsedEnvelope,
  contentKey: Uint8Array,
): Promise<EnvelopePayload | CryptoError> {
  const a = b.async;
  if (contentKey.length !== CONTENT_KEY_BYTES) return decryptFailure('aead', undefined, 'not a content key');
  try {
    const headerHash = await a.sha256(env.headerBytes);
    const committed = await deriveCommittedAsync(a, contentKey, headerHash);
    if (!constantTimeEqual(committed.commitment, env.commitment!)) {
      return decryptFailure('aead', undefined, 'the key commitment does not match the content key');
    }
    const plaintext = await a.aesGcmDecrypt(committed.aeadKey, env.nonce, env.ciphertext, headerHash);
    if (plaintext === undefined) return decryptFailure('aead');
    const payload = decodePayload(plaintext);
    return payload ?? decryptFailure('parse');
  } catch (err) {
    return decryptFailure('parse', err);
  }
}
