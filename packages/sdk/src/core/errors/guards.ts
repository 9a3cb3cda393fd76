/**
 * Type guards for SDK errors. They check the global brand and `kind`, not the
 * prototype chain, so they work across two copies of the package.
 *
 * @module
 */
import { ERROR_BRAND, type AmsError, type ErrorKind } from './base.js';
import type { AnyErrorCode } from './codes.js';
import type { ConfigurationError } from './configuration-error.js';
import type { CryptoError } from './crypto-error.js';
import type { HandlerError } from './handler-error.js';
import type { RateLimitError } from './rate-limit-error.js';
import type { ServiceError } from './service-error.js';
import type { TimeoutError } from './timeout-error.js';
import type { TransportError } from './transport-error.js';
import type { ValidationError } from './validation-error.js';
import type { WebhookVerificationError } from './webhook-verification-error.js';

function kindOf(err: unknown): ErrorKind | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { [ERROR_BRAND]?: unknown; kind?: unknown };
  return e[ERROR_BRAND] === true && typeof e.kind === 'string' ? (e.kind as ErrorKind) : undefined;
}

/** True for any error raised by this SDK (any copy of it). */
export function isAmsError(err: unknown): err is AmsError {
  return kindOf(err) !== undefined;
}

/**
 * True when the service refused the request, optionally with a given code;
 * narrows `err.code` to that code. Rate-limit errors are service errors too.
 *
 * @example
 * ```ts
 * if (isServiceError(err, 'RATE_LIMITED')) await sleep(err.retryAfterMs ?? 1000);
 * ```
 */
export function isServiceError<C extends AnyErrorCode>(err: unknown, code?: C): err is ServiceError<C> {
  const kind = kindOf(err);
  if (kind !== 'service' && kind !== 'rate_limit') return false;
  return code === undefined || (err as ServiceError).code === code;
}

/** True when the service rate-limited the request (HTTP 429), optionally with a given code. */
export function isRateLimitError<C extends AnyErrorCode>(err: unknown, code?: C): err is RateLimitError<C> {
  return kindOf(err) === 'rate_limit' && (code === undefined || (err as RateLimitError).code === code);
}

/** True when the HTTP or WebSocket exchange itself failed. */
export function isTransportError(err: unknown): err is TransportError {
  return kindOf(err) === 'transport';
}

/** True when a client-side deadline ran out. */
export function isTimeoutError(err: unknown): err is TimeoutError {
  return kindOf(err) === 'timeout';
}

/** True when data failed client-side validation. */
export function isValidationError(err: unknown): err is ValidationError {
  return kindOf(err) === 'validation';
}

/** True when a cryptographic operation failed, optionally with a given code. */
export function isCryptoError<C extends CryptoError['code']>(
  err: unknown,
  code?: C,
): err is CryptoError & { readonly code: C } {
  return kindOf(err) === 'crypto' && (code === undefined || (err as CryptoError).code === code);
}

/** True when an incoming webhook delivery was rejected. */
export function isWebhookVerificationError(err: unknown): err is WebhookVerificationError {
  return kindOf(err) === 'webhook_verification';
}

/** True when a user handler threw. */
export function isHandlerError(err: unknown): err is HandlerError {
  return kindOf(err) === 'handler';
}

/** True when the SDK was configured wrongly. */
export function isConfigurationError(err: unknown): err is ConfigurationError {
  return kindOf(err) === 'configuration';
}
