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
import { isCryptoError } from '../core/errors/index.js';
import { defaultBackend, defaultSyncBackend, requireSync } from './backend/node-default.js';
import type { CryptoBackend } from './backend/types.js';
import { decryptFailure, invalidEnvelope } from './envelope-errors.js';
import { parseEnvelope, type ParsedEnvelope } from './envelope-format.js';
import { decodeEnvelopeInput } from './envelope-wire.js';
import { signedMessage } from './key-schedule.js';
import {
  checkOpenOptions,
  type OpenAsyncOptions,
  type OpenedEnvelope,
  type OpenOptions,
  type SenderKeyLookup,
} from './open-options.js';
import { decryptAsync, decryptSync, opened } from './open-steps.js';

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

function parseInput(input: unknown, maxBytes: number, acceptLegacy: boolean): ParsedEnvelope {
  let env: ParsedEnvelope;
  try {
    env = parseEnvelope(decodeEnvelopeInput(input, maxBytes));
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
  const { keys, maxBytes, acceptLegacy } = checkOpenOptions(options);
  const backend = options.backend === undefined ? defaultSyncBackend() : requireSync(options.backend);
  const s = backend.sync;
  const env = parseInput(input, maxBytes, acceptLegacy);
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
  const result = decryptSync(backend, s, env, options.recipientId, keys);
  if (isCryptoError(result)) throw result;
  return opened(env, result.payload, result.match);
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
      : decryptSync(backend, backend.sync, env, options.recipientId, keys);
  const ok = await verified;
  if (ok !== true) throw decryptFailure('signature', ok === false ? undefined : ok);
  if (isCryptoError(result)) throw result;
  return opened(env, result.payload, result.match);
}
