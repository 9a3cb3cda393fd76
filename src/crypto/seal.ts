/**
 * `seal`: encrypt a payload object from a sender to one or more recipients
 * into a v1.1 `wire_envelope` (base64; v1.0 on request). One random content
 * key per message, wrapped for each recipient; in v1.1 the AEAD key and a key
 * commitment are derived from it; the sender signs the whole envelope.
 *
 * @module
 */
import { ValidationError } from '../core/errors/index.js';
import { defaultBackend, defaultSyncBackend, requireSync } from './backend/node-default.js';
import type { AsyncPrimitives, SyncPrimitives } from './backend/types.js';
import { assembleEnvelope, SIZES } from './envelope-format.js';
import { encodeWireEnvelope } from './envelope-wire.js';
import {
  deriveCommitted,
  deriveCommittedAsync,
  deriveKek,
  deriveKekAsync,
  signedMessage,
  WRAP_NONCE,
  wrapExpandInput,
  wrapSalt,
} from './key-schedule.js';
import { encodePayload, type EnvelopePayload } from './payload.js';
import { resolveSeal, type ResolvedSeal, type SealAsyncOptions, type SealOptions } from './seal-options.js';

function badRecipientKey(index: number): ValidationError {
  return new ValidationError({
    message: `Invalid seal options: recipients.${index}.publicKey is not a usable X25519 key`,
    issues: [
      { path: ['recipients', index, 'publicKey'], message: 'X25519 agreement failed (low-order point)' },
    ],
  });
}

function wrapSync(s: SyncPrimitives, r: ResolvedSeal, headerHash: Uint8Array): Uint8Array[] {
  return r.recipients.map((recipient, i) => {
    const shared = s.x25519(r.ephemeral, recipient.publicKey);
    if (shared === undefined) throw badRecipientKey(i);
    const salt = wrapSalt(r.ephemeral.publicKey, recipient.publicKey);
    const kek = deriveKek(s, shared, salt, wrapExpandInput(headerHash, i));
    return s.aesGcmEncrypt(kek, WRAP_NONCE, r.contentKey, headerHash);
  });
}

function wrapAsync(a: AsyncPrimitives, r: ResolvedSeal, headerHash: Uint8Array): Promise<Uint8Array[]> {
  return Promise.all(
    r.recipients.map(async (recipient, i) => {
      const shared = await a.x25519(r.ephemeral, recipient.publicKey);
      if (shared === undefined) throw badRecipientKey(i);
      const salt = wrapSalt(r.ephemeral.publicKey, recipient.publicKey);
      const kek = await deriveKekAsync(a, shared, salt, wrapExpandInput(headerHash, i));
      return a.aesGcmEncrypt(kek, WRAP_NONCE, r.contentKey, headerHash);
    }),
  );
}

/**
 * Seals `payload` into a v1 `wire_envelope` (base64 string), synchronously.
 *
 * @param payload - the message payload, a JSON object such as `{ type: 'text', text: 'hi' }`.
 * @throws {@link index!ValidationError | ValidationError} on an invalid payload, id, key or recipient list.
 * @throws {@link index!ConfigurationError | ConfigurationError} when the runtime has no synchronous backend.
 * @example
 * ```ts
 * const wire = seal({ type: 'text', text: 'hello' }, {
 *   sender: { id: agentId, signing: keys.signing },
 *   recipients: [{ id: userId, publicKey: userX25519 }],
 *   conversationId,
 * });
 * ```
 */
export function seal(payload: EnvelopePayload, options: SealOptions): string {
  return encodeWireEnvelope(sealBytes(payload, options));
}

/**
 * As {@link seal}, returning the raw envelope bytes instead of base64.
 *
 * @throws {@link index!ValidationError | ValidationError} on invalid input.
 */
export function sealBytes(payload: EnvelopePayload, options: SealOptions): Uint8Array {
  return sealPlaintext(encodePayload(payload), options);
}

/**
 * Seals arbitrary plaintext bytes. Internal: lets tests build envelopes whose
 * content is not a JSON object (the `parse` failure); not exported publicly.
 * @internal
 */
export function sealPlaintext(plaintext: Uint8Array, options: SealOptions): Uint8Array {
  const backend = options.backend === undefined ? defaultSyncBackend() : requireSync(options.backend);
  const s = backend.sync;
  const r = resolveSeal(plaintext, options, backend);
  const headerHash = s.sha256(r.headerBytes);
  const wraps = wrapSync(s, r, headerHash);
  const committed = r.minor === 1 ? deriveCommitted(s, r.contentKey, headerHash) : undefined;
  const aeadKey = committed?.aeadKey ?? r.contentKey;
  const ciphertext = s.aesGcmEncrypt(aeadKey, r.nonce, r.plaintext, headerHash);
  const out = assembleEnvelope(r.headerBytes, wraps, committed?.commitment, r.nonce, ciphertext);
  const bodyEnd = out.length - SIZES.signature;
  out.set(s.ed25519Sign(r.signing, signedMessage(s.sha256(out.subarray(0, bodyEnd)))), bodyEnd);
  return out;
}

/**
 * Seals `payload` into a v1 `wire_envelope` on the asynchronous primitives:
 * works with every backend (including the portable one); on node:crypto the
 * signature is computed on the thread pool.
 *
 * @throws {@link index!ValidationError | ValidationError} on an invalid payload, id, key or recipient list.
 * @example
 * ```ts
 * const wire = await sealAsync(payload, { ...options, backend: portableBackend });
 * ```
 */
export async function sealAsync(payload: EnvelopePayload, options: SealAsyncOptions): Promise<string> {
  return encodeWireEnvelope(await sealBytesAsync(payload, options));
}

/** As {@link sealAsync}, returning the raw envelope bytes. */
export async function sealBytesAsync(
  payload: EnvelopePayload,
  options: SealAsyncOptions,
): Promise<Uint8Array> {
  const backend = options.backend ?? defaultBackend();
  const a = backend.async;
  const r = resolveSeal(encodePayload(payload), options, backend);
  const headerHash = await a.sha256(r.headerBytes);
  const committed = r.minor === 1 ? await deriveCommittedAsync(a, r.contentKey, headerHash) : undefined;
  const aeadKey = committed?.aeadKey ?? r.contentKey;
  const [wraps, ciphertext] = await Promise.all([
    wrapAsync(a, r, headerHash),
    a.aesGcmEncrypt(aeadKey, r.nonce, r.plaintext, headerHash),
  ]);
  const out = assembleEnvelope(r.headerBytes, wraps, committed?.commitment, r.nonce, ciphertext);
  const bodyEnd = out.length - SIZES.signature;
  const digest = await a.sha256(out.subarray(0, bodyEnd));
  out.set(await a.ed25519Sign(r.signing, signedMessage(digest)), bodyEnd);
  return out;
}
