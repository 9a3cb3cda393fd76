import { AmsError, ERROR_CLASS_ID } from './base.js';
import type { DecryptFailureReason } from './codes.js';

/** Codes of {@link CryptoError}. */
export type CryptoErrorCode =
  | 'DECRYPT_FAILURE'
  | 'INVALID_ENVELOPE'
  | 'KEY_BACKUP_PASSWORD_INVALID'
  | 'KEY_BACKUP_PARAMS_TOO_WEAK'
  | 'KEY_BACKUP_INVALID'
  | 'KEY_STORE_CORRUPT'
  | 'KEY_STORE_IO'
  | 'KEY_CHANGED'
  | 'MEMBERS_CHANGED'
  | 'MIGRATION_VERIFICATION_FAILED'
  | 'FILE_CORRUPT';

/** Options of {@link CryptoError}. */
export interface CryptoErrorOptions {
  code: CryptoErrorCode;
  message: string;
  /** For DECRYPT_FAILURE: which check failed. */
  reason?: DecryptFailureReason | undefined;
  /** For key store errors: the file concerned. */
  file?: string | undefined;
  cause?: unknown;
}

/**
 * A cryptographic operation failed. Deliberately vague: it names the failed
 * check (`reason`), never the key, plaintext or ciphertext.
 *
 * `DECRYPT_FAILURE` carries one of the five reasons in the order `open`
 * checks them: signature → no_wrap → unwrap → aead → parse.
 */
export class CryptoError extends AmsError {
  /** @internal */
  static override readonly [ERROR_CLASS_ID]: string = 'CryptoError';
  override readonly name: string = 'CryptoError';
  readonly kind = 'crypto' as const;
  declare readonly code: CryptoErrorCode;
  /** For DECRYPT_FAILURE: which check failed. */
  readonly reason: DecryptFailureReason | undefined;
  /** For key store errors: the file concerned. */
  readonly file: string | undefined;

  constructor(options: CryptoErrorOptions) {
    super({
      code: options.code,
      message: options.message,
      params: options.reason === undefined ? undefined : { reason: options.reason },
      cause: options.cause,
    });
    this.reason = options.reason;
    this.file = options.file;
  }
}
