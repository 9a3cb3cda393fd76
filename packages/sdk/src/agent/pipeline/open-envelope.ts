/**
 * The pipeline's crypto steps: get the envelope bytes (inline, or fetched
 * through `ref` and checked against it before anything is decrypted), then
 * open them with the key ring (the current pair and retired pairs still in
 * their grace) and the sender's signing key from the key directory.
 *
 * A signature failure is retried once after forgetting the cached sender key
 * (the sender may have rotated), then with the sender's retired signing keys,
 * each only for messages created before its retirement (as the UserClient). A sender-key lookup that failed for a
 * transient reason (network, 5xx, rate limit) is not a decrypt failure: the
 * lookup's error is thrown instead, so the event is reported (and, by
 * webhook, retried) rather than discarded.
 *
 * @module
 */
import { isAmsError, isCryptoError } from '../../core/errors/guards.js';
import { dispositionOf } from '../../core/errors/codes.js';
import { TransportError } from '../../core/errors/transport-error.js';
import { LIMITS } from '../../core/limits.js';
import { ENVELOPE_REF_MAX_BYTES } from '../../crypto/envelope-wire.js';
import { openAsync } from '../../crypto/open.js';
import type { OpenAsyncOptions, OpenedEnvelope } from '../../crypto/open-options.js';
import { openWithRetiredKeys } from '../../messaging/retired-signing.js';
import type { FetchedObject, PipelineDeps } from './types.js';

/** The fields of an object reference the checks read. */
export interface RefLike {
  readonly object_key: string;
  readonly size: number;
  readonly content_type: string;
}

function mediaType(value: string | undefined): string | undefined {
  return value?.split(';')[0]?.trim().toLowerCase() || undefined;
}

/**
 * Checks a fetched object against its `ref`: media type and exact size.
 *
 * @throws {@link TransportError} `TRANSPORT_BAD_RESPONSE` on a mismatch.
 */
export function checkObject(object: FetchedObject, ref: RefLike): Uint8Array {
  const bad = (what: string): TransportError =>
    new TransportError({
      code: 'TRANSPORT_BAD_RESPONSE',
      message: `The referenced object does not match its ref: ${what}.`,
    });
  if (mediaType(object.contentType) !== mediaType(ref.content_type)) throw bad('content type differs');
  if (object.bytes.length !== ref.size) throw bad('size differs from ref.size');
  return object.bytes;
}

/**
 * Fetches and checks the ciphertext of a `ref`.
 *
 * @throws {@link TransportError} for a too-large ref or a mismatch; what `fetchObject` throws.
 */
export async function fetchRef(deps: PipelineDeps, ref: RefLike): Promise<Uint8Array> {
  if (ref.size > LIMITS.FILE_MAX_BYTES) {
    throw new TransportError({
      code: 'TRANSPORT_BAD_RESPONSE',
      message: 'The referenced object is larger than 100 MB.',
    });
  }
  return checkObject(await deps.fetchObject(ref.object_key), ref);
}

/** A lookup error that says nothing about the key itself (so the signature failure is not the message's fault). */
function isTransient(err: unknown): boolean {
  if (!isAmsError(err)) return true;
  if (err.kind === 'transport' || err.kind === 'timeout' || err.kind === 'rate_limit') return true;
  return dispositionOf(err.code, err.status) === 'retry';
}

async function openOnce(
  deps: PipelineDeps,
  input: string | Uint8Array,
  referenced: boolean,
): Promise<{ opened?: OpenedEnvelope; error?: unknown; senderId?: string; lookupError?: unknown }> {
  const ring = await deps.keys.ring();
  const seen: { senderId?: string; lookupError?: unknown } = {};
  try {
    const options: OpenAsyncOptions = {
      recipientId: deps.agentId,
      keys: ring.candidates(deps.clock.now()),
      senderKey: async (senderId) => {
        seen.senderId = senderId;
        try {
          return await deps.keys.signingKey(senderId);
        } catch (err) {
          seen.lookupError = err;
          return undefined;
        }
      },
      ...(referenced ? { maxEnvelopeBytes: ENVELOPE_REF_MAX_BYTES } : {}),
      ...(deps.backend === undefined ? {} : { backend: deps.backend }),
      ...(deps.acceptLegacyV10 === undefined ? {} : { acceptLegacyV10: deps.acceptLegacyV10 }),
    };
    // On worker threads when the pool is in use (a burst), else here: the same results either way.
    const opened = await (deps.openPool === undefined
      ? openAsync(input, options)
      : deps.openPool.open(input, options));
    return { opened };
  } catch (error) {
    return { error, ...seen };
  }
}

/** The envelope opened with one of the sender's retired signing keys (signed before its retirement). */
async function openRetired(
  deps: PipelineDeps,
  input: string | Uint8Array,
  referenced: boolean,
  senderId: string | undefined,
): Promise<OpenedEnvelope | undefined> {
  if (senderId === undefined || deps.keys.retiredSigningKeys === undefined) return undefined;
  let retired;
  try {
    retired = await deps.keys.retiredSigningKeys(senderId);
  } catch {
    return undefined; // the signature failure stands
  }
  if (retired.length === 0) return undefined;
  const ring = await deps.keys.ring();
  return openWithRetiredKeys(
    input,
    {
      recipientId: deps.agentId,
      keys: ring.candidates(deps.clock.now()),
      ...(referenced ? { maxEnvelopeBytes: ENVELOPE_REF_MAX_BYTES } : {}),
      ...(deps.backend === undefined ? {} : { backend: deps.backend }),
      ...(deps.acceptLegacyV10 === undefined ? {} : { acceptLegacyV10: deps.acceptLegacyV10 }),
    },
    retired,
  );
}

/** A lookup error that stands on its own: transient, or a key change refused (`KEY_CHANGED`). */
const refused = (err: unknown): boolean =>
  err !== undefined && (isTransient(err) || isCryptoError(err, 'KEY_CHANGED'));

/**
 * Opens an envelope as this agent.
 *
 * @param input - the base64 `wire_envelope`, or the bytes fetched through `ref`.
 * @throws {@link CryptoError} `DECRYPT_FAILURE` (with `reason`) or `INVALID_ENVELOPE`;
 * the sender-key lookup's own error when it failed transiently; a key store error.
 */
export async function openEnvelope(
  deps: PipelineDeps,
  input: string | Uint8Array,
  referenced: boolean,
): Promise<OpenedEnvelope> {
  let attempt = await openOnce(deps, input, referenced);
  if (attempt.opened !== undefined) return attempt.opened;
  if (isCryptoError(attempt.error, 'DECRYPT_FAILURE') && attempt.error.reason === 'signature') {
    if (refused(attempt.lookupError)) throw attempt.lookupError;
    if (attempt.senderId !== undefined && attempt.lookupError === undefined) {
      // The cached key may be stale (the sender rotated): look it up afresh once.
      deps.keys.invalidate(attempt.senderId);
      attempt = await openOnce(deps, input, referenced);
      if (attempt.opened !== undefined) return attempt.opened;
      if (refused(attempt.lookupError)) throw attempt.lookupError;
      const retired = await openRetired(deps, input, referenced, attempt.senderId);
      if (retired !== undefined) return retired;
    }
  }
  throw attempt.error;
}
