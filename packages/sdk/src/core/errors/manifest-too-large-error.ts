import { ERROR_CLASS_ID } from './base.js';
import { ServiceError } from './service-error.js';

/** Options of {@link ManifestTooLargeError}. */
export interface ManifestTooLargeErrorOptions {
  /** The manifest's size: UTF-8 bytes of its canonical JSON. */
  readonly sizeBytes: number;
  /** The cap (128 KB). */
  readonly maxBytes: number;
  /** True when the SDK refused before sending; false when the service answered 413. */
  readonly clientSide: boolean;
  /** The service's error, when it answered. */
  readonly cause?: unknown;
}

/**
 * `MANIFEST_TOO_LARGE` (413): a capability manifest above 128 KB. The SDK
 * checks the size before sending and refuses with this error (status 413, as
 * the service would); a manifest the service refuses gives the same class.
 * Branch on `code` either way.
 *
 * @example
 * ```ts
 * if (isServiceError(err, 'MANIFEST_TOO_LARGE')) console.error(`manifest is ${err.params.size_bytes} bytes`);
 * ```
 */
export class ManifestTooLargeError extends ServiceError<'MANIFEST_TOO_LARGE'> {
  /** @internal */
  static override readonly [ERROR_CLASS_ID]: string = 'ManifestTooLargeError';
  override readonly name: string = 'ManifestTooLargeError';
  /** The manifest's size in bytes. */
  readonly sizeBytes: number;
  /** The cap in bytes. */
  readonly maxBytes: number;
  /** True when refused by the SDK before any request. */
  readonly clientSide: boolean;

  constructor(options: ManifestTooLargeErrorOptions) {
    super({
      code: 'MANIFEST_TOO_LARGE',
      status: 413,
      message: `The capability manifest is ${options.sizeBytes} bytes; the limit is ${options.maxBytes} bytes.`,
      params: { size_bytes: options.sizeBytes, max_bytes: options.maxBytes },
      cause: options.cause,
    });
    this.sizeBytes = options.sizeBytes;
    this.maxBytes = options.maxBytes;
    this.clientSide = options.clientSide;
  }
}
