/**
 * `open`: verify and decrypt a v1.1 (or legacy v1.0) envelope as one of its recipients.
 *
 * Checks run in this order and the first failure is the one reported:
 * structure (`INVALID_ENVELOPE`, including a v1.0 envelope when
 * `acceptLegacyV10` is false), then `DECRYPT_FAILURE` with reason
 * `signature` → `no_wrap` → `unwrap` → `aead` (v1.1: the key commitment,
 * then the tag) → `parse`. Given valid options,
 * nothing but a {@link index!CryptoError | CryptoError} ever escapes.
 *
 * @module
 */
import { isCryptoError, type CryptoError } from '../core/errors/index.js';
import { defaultBackend, defaultSyncBackend, requireSync } from './backend/node-default.js';
import type { CryptoBackend } from './backend/types.js';
import { decryptFailure, invalidEnvelope } from './envelope-errors.js';
import { parseEnvelope, type ParsedEnvelope } from './envelope-format.js';
import { decodeEnvelopeInput, type ByteAllocator } from './envelope-wire.js';
import { signedMessage } from './key-schedule.js';
import {
  checkOpenOptions,
  type OpenAsyncOptions,
  type OpenedEnvelope,
  type OpenedPayloadBytes,
  type OpenOptions,
  type SenderKeyLookup,
} from './open-options.js';
import {
  decryptAsync,
  decryptBytesSync,
  openedMetadata,
  type Decrypted,
  parsePlaintext,
  type DecryptedBytes,
  type WrapMatch,
} from './open-steps.js';
import { allocBytes, borrowScratch, releaseScratch, SCRATCH_MIN_BYTES } from './scratch.js';

/**
 * `openAsync` verifies envelopes whose signed body is larger than this before
 * decrypting anything (64 KiB). Smaller ones are decrypted while the signature
 * is checked. Measured crossover (docs/envelope.md, "Verify first"): at 64 KiB
 * decrypting and parsing costs about as much as verifying, so overlapping the
 * two saves at most one verify of latency, while a forged envelope (anyone can
 * encrypt to a recipient) would cost the full decryption and `JSON.parse`,
 * which grows with the size (≈ 2.5 ms per MiB).
 */
export const OPEN_VERIFY_FIRST_BYTES = 64 * 1024;

function parseInput(
  input: unknown,
  maxBytes: number,
  acceptLegacy: boolean,
  into?: ByteAllocator,
): ParsedEnvelope {
  let env: ParsedEnvelope;
  try {
    env = parseEnvelope(decodeEnvelopeInput(input, maxBytes, into));
  } catch (err) {
    throw isCryptoError(err) ? err : invalidEnvelope('unreadable', err);
  }
  if (env.minor === 0 && !acceptLegacy) throw invalidEnvelope('legacy v1.0 envelopes are not accepted');
  return env;
}

/**
 * Opens a v1 envelope synchronously (node:crypto backend).
 *
 * @param input - the `wire_envelope` base64 string, or envelope bytes (raw or base64 text).
 * @throws {@link index!CryptoError | CryptoError} `INVALID_ENVELOPE` for malformed input (bad base64,
 * truncated, unknown version, too large, wrong types); `DECRYPT_FAILURE` with
 * `reason` `signature` | `no_wrap` | `unwrap` | `aead` | `parse`.
 * @throws {@link index!ValidationError | ValidationError} for invalid options (before the input is read).
 * @example
 * ```ts
 * const { payload, senderId } = open(body.wire_envelope, {
 *   recipientId: agentId,
 *   keys: [current.encryption, retired.encryption],
 *   senderKey: (id) => signingKeys.get(id),
 * });
 * ```
 */
export function open(input: string | Uint8Array, options: OpenOptions): OpenedEnvelope {
  const result = openSync<Opened>(input, options, (decrypted) => parsePlaintext(decrypted));
  return { payload: result.payload, ...result.metadata };
}

/**
 * As {@link open}, but returns the payload as the decrypted UTF-8 JSON bytes,
 * neither decoded nor parsed: the fast path for large payloads that are stored,
 * streamed or forwarded (see {@link sealPayloadBytes}) rather than read. Every
 * check of {@link open} runs except the last (`parse`): the bytes are
 * authenticated, but whether they are JSON of an object is the caller's to find
 * out (`JSON.parse(new TextDecoder().decode(payloadJson))` gives {@link open}'s
 * `payload`). Pass the raw envelope bytes of an object fetched by `ref` (with
 * `maxEnvelopeBytes: ENVELOPE_REF_MAX_BYTES`) to skip base64 altogether.
 *
 * @param input - the `wire_envelope` base64 string, or envelope bytes (raw or base64 text).
 * @throws {@link index!CryptoError | CryptoError} as {@link open}, except reason `parse`.
 * @throws {@link index!ValidationError | ValidationError} for invalid options.
 * @example
 * ```ts
 * const { payloadJson, senderId } = openPayloadBytes(objectBytes, {
 *   recipientId: agentId,
 *   keys: current.encryption,
 *   senderKey: (id) => signingKeys.get(id),
 *   maxEnvelopeBytes: ENVELOPE_REF_MAX_BYTES,
 * });
 * await writeFile(`${senderId}.json`, payloadJson);
 * ```
 */
export function openPayloadBytes(input: string | Uint8Array, options: OpenOptions): OpenedPayloadBytes {
  const result = openSync<OpenedBytes>(input, options, (decrypted) => decrypted);
  return { payloadJson: result.plaintext, ...result.metadata };
}

type Opened = Exclude<Decrypted, CryptoError>;
type OpenedBytes = Exclude<DecryptedBytes, CryptoError>;

/**
 * The synchronous open up to `finish` (which adds the `parse` step or not).
 * Base64 input of a large envelope is decoded into the shared scratch (see
 * `scratch.ts`), released before returning: nothing returned refers to it.
 */
function openSync<T extends { readonly match: WrapMatch }>(
  input: string | Uint8Array,
  options: OpenOptions,
  finish: (decrypted: DecryptedBytes) => T | CryptoError,
): T & { readonly metadata: Omit<OpenedEnvelope, 'payload'> } {
  const { keys, maxBytes, acceptLegacy } = checkOpenOptions(options);
  const backend = options.backend === undefined ? defaultSyncBackend() : requireSync(options.backend);
  const s = backend.sync;
  let borrowed = false;
  const into = (size: number): Uint8Array => {
    const view = borrowScratch(size);
    borrowed = view !== undefined;
    return view ?? allocBytes(size);
  };
  try {
    const large =
      (typeof input === 'string' || input instanceof Uint8Array) && input.length >= SCRATCH_MIN_BYTES;
    const env = parseInput(input, maxBytes, acceptLegacy, large ? into : undefined);
    let senderKey: unknown;
    try {
      senderKey =
        typeof options.senderKey === 'function' ? options.senderKey(env.header.senderId) : options.senderKey;
    } catch (err) {
      throw decryptFailure('signature', err);
    }
    const message = signedMessage(s.sha256(env.body));
    if (!(senderKey instanceof Uint8Array) || !s.ed25519Verify(senderKey, message, env.signature)) {
      throw decryptFailure('signature');
    }
    const result = finish(decryptBytesSync(backend, s, env, options.recipientId, keys));
    if (isCryptoError(result)) throw result;
    return { ...result, metadata: openedMetadata(env, result.match) };
  } finally {
    if (borrowed) releaseScratch();
  }
}

/** Resolves the sender key and starts verification at once (on the thread pool with node:crypto). */
async function verifyAsync(b: CryptoBackend, senderKey: Uint8Array | SenderKeyLookup, env: ParsedEnvelope) {
  const found = typeof senderKey === 'function' ? senderKey(env.header.senderId) : senderKey;
  const key: unknown = found instanceof Uint8Array || found === undefined ? found : await found;
  if (!(key instanceof Uint8Array)) return false;
  const digest = b.sync !== undefined ? b.sync.sha256(env.body) : await b.async.sha256(env.body);
  return b.async.ed25519Verify(key, signedMessage(digest), env.signature);
}

/**
 * Opens a v1 envelope on the asynchronous primitives. Works with every backend;
 * on node:crypto the signature check runs on the thread pool while the key
 * agreement and decryption run on the calling thread, so many opens in flight
 * use more than one core. Envelopes larger than {@link OPEN_VERIFY_FIRST_BYTES}
 * are verified before anything is decrypted. The sender lookup may be async. Failure reasons and
 * their order are exactly those of {@link open}; no plaintext is returned
 * unless the signature verifies.
 *
 * @throws {@link index!CryptoError | CryptoError} as {@link open}.
 * @throws {@link index!ValidationError | ValidationError} for invalid options.
 * @example
 * ```ts
 * const msg = await openAsync(wire, { recipientId, keys, senderKey: (id) => directory.signingKey(id) });
 * ```
 */
export async function openAsync(
  input: string | Uint8Array,
  options: OpenAsyncOptions,
): Promise<OpenedEnvelope> {
  const { keys, maxBytes, acceptLegacy } = checkOpenOptions(options);
  const backend = options.backend ?? defaultBackend();
  const env = parseInput(input, maxBytes, acceptLegacy);
  // Verification is started first (on node:crypto it runs on the thread pool); the
  // decryption then runs here meanwhile. The result is released only once it verified.
  const verified = verifyAsync(backend, options.senderKey, env).catch((err: unknown) => err);
  if (env.body.length > OPEN_VERIFY_FIRST_BYTES) {
    // Large: nothing is decrypted or parsed for a signature that does not verify.
    const ok = await verified;
    if (ok !== true) throw decryptFailure('signature', ok === false ? undefined : ok);
  }
  const result =
    backend.sync === undefined
      ? await decryptAsync(backend, env, options.recipientId, keys)
      : parsePlaintext(decryptBytesSync(backend, backend.sync, env, options.recipientId, keys));
  const ok = await verified;
  if (ok !== true) throw decryptFailure('signature', ok === false ? undefined : ok);
  if (isCryptoError(result)) throw result;
  return { payload: result.payload, ...openedMetadata(env, result.match) };
}
