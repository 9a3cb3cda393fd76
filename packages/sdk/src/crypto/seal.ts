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
import { assembleEnvelope, prefixLength, SIZES, writeEnvelopePrefix } from './envelope-format.js';
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
import {
  checkPayloadJsonBytes,
  encodePayload,
  payloadPlaintext,
  plaintextOfBytes,
  type EnvelopePayload,
  type PlaintextSource,
} from './payload.js';
import { borrowScratch, releaseScratch } from './scratch.js';
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
  return sealSource(payloadPlaintext(payload), options, true, encodeWireEnvelope);
}

/**
 * As {@link seal}, returning the raw envelope bytes instead of base64.
 *
 * @throws {@link index!ValidationError | ValidationError} on invalid input.
 */
export function sealBytes(payload: EnvelopePayload, options: SealOptions): Uint8Array {
  return sealSource(payloadPlaintext(payload), options, false, (envelope) => envelope);
}

/**
 * Seals a payload given as its UTF-8 JSON text, returning the raw envelope
 * bytes: the fast path for large payloads that are already serialised (a
 * payload received with {@link crypto!openPayloadBytes | openPayloadBytes} and
 * forwarded, a JSON document read from disk). The bytes are encrypted as they
 * are, so the envelope is exactly what {@link sealBytes} makes of the parsed
 * object when they are `JSON.stringify`'s output; nothing is parsed. Only cheap
 * checks run: valid UTF-8, no byte order mark, `{` … `}` around the text.
 * Text that passes them yet is not JSON of an object reaches the receiver as
 * `DECRYPT_FAILURE` (reason `parse`), so pass only JSON you produced or received.
 * Its base64 (`Buffer.from(envelope).toString('base64')`) is the `wire_envelope` string.
 *
 * @param payloadJson - the payload's UTF-8 JSON text, e.g. `Buffer.from(JSON.stringify(payload))`.
 * @throws {@link index!ValidationError | ValidationError} when the bytes fail the checks, or on invalid options.
 * @throws {@link index!ConfigurationError | ConfigurationError} when the runtime has no synchronous backend.
 * @example
 * ```ts
 * const envelope = sealPayloadBytes(await readFile('report.json'), options);
 * await putObject(key, envelope); // delivered by `ref`
 * ```
 */
export function sealPayloadBytes(payloadJson: Uint8Array, options: SealOptions): Uint8Array {
  return sealSource(plaintextOfBytes(checkPayloadJsonBytes(payloadJson)), options, false, (e) => e);
}

/**
 * Seals arbitrary plaintext bytes. Internal: lets tests build envelopes whose
 * content is not a JSON object (the `parse` failure); not exported publicly.
 * @internal
 */
export function sealPlaintext(plaintext: Uint8Array, options: SealOptions): Uint8Array {
  return sealSource(plaintextOfBytes(plaintext), options, false, (envelope) => envelope);
}

/**
 * Encrypts the content straight into its place in the envelope: the plaintext
 * is written where its ciphertext goes and encrypted over (no array of the
 * payload's size in between); cleared again if encryption fails.
 */
function encryptContent(
  s: SyncPrimitives,
  key: Uint8Array,
  nonce: Uint8Array,
  source: PlaintextSource,
  aad: Uint8Array,
  out: Uint8Array,
  offset: number,
): void {
  const plaintext = out.subarray(offset, offset + source.byteLength);
  source.writeTo(out, offset);
  try {
    if (s.aesGcmEncryptInto !== undefined) s.aesGcmEncryptInto(key, nonce, plaintext, aad, out, offset);
    else out.set(s.aesGcmEncrypt(key, nonce, plaintext, aad), offset);
  } catch (err) {
    plaintext.fill(0);
    throw err;
  }
}

/**
 * The synchronous seal: lays the envelope out in one array (the shared scratch
 * when `borrow` and it is free, see `scratch.ts`), encrypts into it, signs,
 * and returns what `use` makes of it. `use` must not keep a borrowed array.
 */
function sealSource<T>(
  source: PlaintextSource,
  options: SealOptions,
  borrow: boolean,
  use: (envelope: Uint8Array) => T,
): T {
  const backend = options.backend === undefined ? defaultSyncBackend() : requireSync(options.backend);
  const s = backend.sync;
  const r = resolveSeal(source.byteLength, options, backend);
  const headerHash = s.sha256(r.headerBytes);
  const wraps = wrapSync(s, r, headerHash);
  const committed = r.minor === 1 ? deriveCommitted(s, r.contentKey, headerHash) : undefined;
  const aeadKey = committed?.aeadKey ?? r.contentKey;
  const prefix = { headerBytes: r.headerBytes, wraps, commitment: committed?.commitment, nonce: r.nonce };
  const size = prefixLength(prefix) + source.byteLength + SIZES.tag + SIZES.signature;
  const scratch = borrow ? borrowScratch(size) : undefined;
  try {
    const out = scratch ?? new Uint8Array(size);
    encryptContent(s, aeadKey, r.nonce, source, headerHash, out, writeEnvelopePrefix(prefix, out));
    const bodyEnd = size - SIZES.signature;
    out.set(s.ed25519Sign(r.signing, signedMessage(s.sha256(out.subarray(0, bodyEnd)))), bodyEnd);
    return use(out);
  } finally {
    if (scratch !== undefined) releaseScratch();
  }
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
  const plaintext = encodePayload(payload);
  const r = resolveSeal(plaintext.length, options, backend);
  const headerHash = await a.sha256(r.headerBytes);
  const committed = r.minor === 1 ? await deriveCommittedAsync(a, r.contentKey, headerHash) : undefined;
  const aeadKey = committed?.aeadKey ?? r.contentKey;
  const [wraps, ciphertext] = await Promise.all([
    wrapAsync(a, r, headerHash),
    a.aesGcmEncrypt(aeadKey, r.nonce, plaintext, headerHash),
  ]);
  const out = assembleEnvelope(r.headerBytes, wraps, committed?.commitment, r.nonce, ciphertext);
  const bodyEnd = out.length - SIZES.signature;
  const digest = await a.sha256(out.subarray(0, bodyEnd));
  out.set(await a.ed25519Sign(r.signing, signedMessage(digest)), bodyEnd);
  return out;
}
