/**
 * The root of every error the SDK raises.
 *
 * Errors are branded with `Symbol.for(...)` rather than recognised with
 * `instanceof` alone, so a guard works even when two copies of the package
 * (ESM and CJS, or two versions) are loaded in one process.
 *
 * @module
 */
import type { AnyErrorCode } from './codes.js';
import { redactParams, redactSecrets } from './redact.js';

/** The global brand every SDK error carries. */
export const ERROR_BRAND: unique symbol = Symbol.for('agent-messaging-sdk.error') as never;

/** Who failed: one value per subclass. */
export type ErrorKind =
  | 'service'
  | 'rate_limit'
  | 'transport'
  | 'timeout'
  | 'validation'
  | 'crypto'
  | 'webhook_verification'
  | 'handler'
  | 'configuration';

/** Fields every SDK error can be built with. */
export interface AmsErrorOptions {
  /** Stable machine code; branch on it. */
  code: AnyErrorCode;
  /** Fallback display text. Must not be parsed. Secrets are redacted from it. */
  message: string;
  /** HTTP status, when one applies. */
  status?: number | undefined;
  /** Client translation key. */
  i18nKey?: string | undefined;
  /** Template parameters for the translation. Secrets in string values are redacted. */
  params?: Readonly<Record<string, unknown>> | undefined;
  /** How long to wait before retrying, in milliseconds, when known. */
  retryAfterMs?: number | undefined;
  /** The service's request id, when known. */
  requestId?: string | undefined;
  /** The underlying error. */
  cause?: unknown;
}

/**
 * Base class of every error the SDK raises. Branch on {@link AmsError.code};
 * the `isXError` guards are the documented way to tell errors apart, and
 * `instanceof` gives the same answers: it also recognises errors created by
 * another copy of the package (ESM next to CJS, or two versions), by brand
 * and `kind`.
 */
export abstract class AmsError extends Error {
  /** The `kind`s an instance of this class has (`undefined`: any SDK error). */
  protected static readonly kinds: readonly ErrorKind[] | undefined = undefined;

  /**
   * `err instanceof ServiceError` is true for a ServiceError of this copy of
   * the package, and for an error of another copy with the brand and a
   * matching `kind`.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    if (typeof value !== 'object' || value === null) return false;
    const v = value as { [ERROR_BRAND]?: unknown; kind?: unknown };
    if (v[ERROR_BRAND] !== true || typeof v.kind !== 'string') return false;
    const kinds = this.kinds;
    return kinds === undefined || kinds.includes(v.kind as ErrorKind);
  }

  /** Brand shared by every copy of the package. */
  readonly [ERROR_BRAND] = true as const;
  /** Who failed. */
  abstract readonly kind: ErrorKind;
  /** Stable machine code; the only field code may branch on. */
  readonly code: AnyErrorCode;
  /** HTTP status, when one applies. */
  readonly status: number | undefined;
  /** Client translation key (the service's `i18n_key`). */
  readonly i18nKey: string | undefined;
  /** Translation parameters (the service's `params`). */
  readonly params: Readonly<Record<string, unknown>>;
  /** How long to wait before retrying, in milliseconds, when known. */
  readonly retryAfterMs: number | undefined;
  /** The service's request id, when known. */
  readonly requestId: string | undefined;

  constructor(options: AmsErrorOptions) {
    super(redactSecrets(options.message), options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    this.status = options.status;
    this.i18nKey = options.i18nKey;
    this.params = Object.freeze(redactParams(options.params ?? {}));
    this.retryAfterMs = options.retryAfterMs;
    this.requestId = options.requestId;
  }

  /** A plain, secret-free object for logs and JSON. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      kind: this.kind,
      code: this.code,
      status: this.status,
      message: this.message,
      i18nKey: this.i18nKey,
      params: this.params,
      retryAfterMs: this.retryAfterMs,
      requestId: this.requestId,
    };
  }
}
