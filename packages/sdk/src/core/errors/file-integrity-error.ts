import { ERROR_CLASS_ID } from './base.js';
import { CryptoError } from './crypto-error.js';

/**
 * What an encrypted file failed: `header` (not a file of this format, or an
 * unsupported version or chunk size), `chunk` (a chunk does not authenticate:
 * modified, reordered, from another file or under another key), `truncated`
 * (the ciphertext ends before its last chunk), `trailing` (bytes after the
 * last chunk), `sha256` (the ciphertext's SHA-256 differs from the declared
 * one) or `size` (the plaintext's size differs from the declared one).
 */
export type FileIntegrityFailure = 'header' | 'chunk' | 'truncated' | 'trailing' | 'sha256' | 'size';

/** Options of {@link FileIntegrityError}. */
export interface FileIntegrityErrorOptions {
  /** Which check failed. */
  failure: FileIntegrityFailure;
  /** Display text; never contains key, plaintext or ciphertext. */
  message: string;
  /** The underlying error (a failed AEAD check, for instance). */
  cause?: unknown;
}

/**
 * An encrypted file failed a check while it was read: code `FILE_CORRUPT`,
 * with the failed check in {@link FileIntegrityError.failure} (and
 * `params.failure`). No plaintext of a chunk that failed is ever released.
 *
 * @example
 * ```ts
 * try {
 *   await agent.files.download(msg.payload);
 * } catch (err) {
 *   if (err instanceof FileIntegrityError) console.warn(`file failed its ${err.failure} check`);
 * }
 * ```
 */
export class FileIntegrityError extends CryptoError {
  /** @internal */
  static override readonly [ERROR_CLASS_ID]: string = 'FileIntegrityError';
  override readonly name: string = 'FileIntegrityError';
  /** Which check failed. */
  readonly failure: FileIntegrityFailure;

  constructor(options: FileIntegrityErrorOptions) {
    super({ code: 'FILE_CORRUPT', message: options.message, cause: options.cause });
    this.failure = options.failure;
    Object.defineProperty(this, 'params', { value: Object.freeze({ failure: options.failure }) });
  }
}
