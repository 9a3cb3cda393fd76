/**
 * The two ways an envelope fails, built in one place so messages stay uniform
 * and never carry key, ciphertext or plaintext bytes.
 *
 * @module
 */
import { CryptoError, type DecryptFailureReason } from '../core/errors/index.js';

/** An `INVALID_ENVELOPE` error: the input is not a well-formed v1 envelope. */
export function invalidEnvelope(detail: string, cause?: unknown): CryptoError {
  return new CryptoError({ code: 'INVALID_ENVELOPE', message: `Invalid envelope: ${detail}`, cause });
}

/** A `DECRYPT_FAILURE` error naming the check that failed. */
export function decryptFailure(reason: DecryptFailureReason, cause?: unknown, detail?: string): CryptoError {
  return new CryptoError({
    code: 'DECRYPT_FAILURE',
    message: `Envelope could not be opened (${reason} check failed${detail === undefined ? '' : `: ${detail}`})`,
    reason,
    cause,
  });
}
