import { AmsError, ERROR_CLASS_ID } from './base.js';
import type { CryptoErrorCode } from './codes.js';
import type { DecryptFailureReason } from './codes.js';

/** Options of {@link CryptoError}. */
export interface CryptoErrorOptions {
  code: CryptoErrorCode;
  message: string;
  /** For DECRYPT_FAILURE: which check failed. */
  reason?: DecryptFailureReason | undefined;
  /** For key store errors: the file concerned. */
  file?: string | undefined;
  /** For DECISION_REFUSED: why the decision was refused (`params.reason`). */
  refusal?: string | undefined;
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
      params:
        options.reason !== undefined
          ? { reason: options.reason }
          : options.refusal === undefined
            ? undefined
            : { reason: options.refusal },
      cause: options.cause,
    });
    this.reason = options.reason;
    this.file = options.file;
  }
}

export type { CryptoErrorCode };
