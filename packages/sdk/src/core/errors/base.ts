/**
 * The root of every error the SDK raises.
 *
 * Errors are branded with `Symbol.for(...)` rather than recognised with
 * `instanceof` alone, so a guard works even when two copies of the package
 * (ESM and CJS, or two versions) are loaded in one process.
 *
 * @module
 */
import type { AmsErrorCode } from './codes.js';
import { redactParams, redactSecrets } from './redact.js';

/** The global brand every SDK error carries. */
export const ERROR_BRAND: unique symbol = Symbol.for('agent-messaging-sdk.error') as never;

/**
 * Key of the static class id each SDK error class declares (its own name,
 * stable across copies and minifiers), and of the instance's lineage: the ids
 * of its class and of every SDK error class above it.
 *
 * @internal
 */
export const ERROR_CLASS_ID: unique symbol = Symbol.for('agent-messaging-sdk.error.class') as never;
/** @internal */
export const ERROR_LINEAGE: unique symbol = Symbol.for('agent-messaging-sdk.error.lineage') as never;

/** The class ids of `ctor` and of every SDK error class it extends, nearest first. */
function lineageOf(ctor: unknown): readonly string[] {
  const ids: string[] = [];
  for (let c = ctor; typeof c === 'function'; c = Object.getPrototypeOf(c)) {
    if (Object.hasOwn(c, ERROR_CLASS_ID))
      ids.push((c as unknown as { [ERROR_CLASS_ID]: string })[ERROR_CLASS_ID]);
  }
  return Object.freeze(ids);
}

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
  code: AmsErrorCode;
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
  /** @internal */
  static readonly [ERROR_CLASS_ID]: string = 'AmsError';

  /**
   * `err instanceof StreamError` is true for a StreamError (or a subclass) of
   * this copy of the package, and for an error of another copy whose lineage
   * names `StreamError`. Each class matches itself and its real subclasses
   * only: a plain ServiceError is not a StreamError, whichever copy made it.
   * A class that declares no id of its own (a user's subclass) is matched by
   * the prototype chain alone.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    if (typeof value !== 'object' || value === null || !Object.hasOwn(this, ERROR_CLASS_ID)) return false;
    const v = value as { [ERROR_BRAND]?: unknown; [ERROR_LINEAGE]?: unknown };
    if (v[ERROR_BRAND] !== true || !Array.isArray(v[ERROR_LINEAGE])) return false;
    return (v[ERROR_LINEAGE] as unknown[]).includes((this as { [ERROR_CLASS_ID]: string })[ERROR_CLASS_ID]);
  }

  /** Brand shared by every copy of the package. */
  readonly [ERROR_BRAND] = true as const;
  /** Who failed. */
  abstract readonly kind: ErrorKind;
  /** Stable machine code; the only field code may branch on. */
  readonly code: AmsErrorCode;
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
    Object.defineProperty(this, ERROR_LINEAGE, { value: lineageOf(new.target), enumerable: false });
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
