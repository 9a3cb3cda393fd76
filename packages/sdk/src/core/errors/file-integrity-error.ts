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

/**
 * An encrypted file failed a check while it was read: code `FILE_CORRUPT`,
 * with the failed check in {@link FileIntegrityError.failure} (and
 * `params.failure`). No plaintext of a chunk that failed is ever released.
 */
export class FileIntegrityError extends CryptoError {
  override readonly name: string = 'FileIntegrityError';
  /** Which check failed. */
  readonly failure: FileIntegrityFailure;

  constructor(failure: FileIntegrityFailure, message: string, cause?: unknown) {
    super({ code: 'FILE_CORRUPT', message, cause });
    this.failure = failure;
    Object.defineProperty(this, 'params', { value: Object.freeze({ failure }) });
  }
}
