export { AmsError, ERROR_BRAND, type AmsErrorOptions, type ErrorKind } from './base.js';
export {
  ERROR_CATALOGUE,
  ERROR_CODES,
  DECRYPT_FAILURE_REASONS,
  DELIVERY_FAILURE_REASONS,
  ENVELOPE_FAILURE_REASONS,
  STREAM_ERROR_VALUES,
  ARTIFACT_DENIED_REASONS,
  isErrorCode,
  statusOf,
  dispositionOf,
  isTerminalCode,
  type ErrorCode,
  type AnyErrorCode,
  type UnknownErrorCode,
  type AmsErrorCode,
  type ClientErrorCode,
  toErrorCode,
  type ErrorCategory,
  type ErrorDisposition,
  type ErrorCatalogueEntry,
  type DecryptFailureReason,
  type StreamErrorValue,
  type ArtifactDeniedReason,
} from './codes.js';
export { ServiceError, type ServiceErrorOptions } from './service-error.js';
export { RateLimitError } from './rate-limit-error.js';
export { ManifestTooLargeError, type ManifestTooLargeErrorOptions } from './manifest-too-large-error.js';
export { StreamError, type StreamErrorOptions } from './stream-error.js';
export { TransportError, type TransportErrorCode, type TransportErrorOptions } from './transport-error.js';
export { TimeoutError, type TimeoutErrorOptions } from './timeout-error.js';
export { ValidationError, type ValidationErrorOptions, type ValidationIssue } from './validation-error.js';
export { CryptoError, type CryptoErrorCode, type CryptoErrorOptions } from './crypto-error.js';
export {
  FileIntegrityError,
  type FileIntegrityErrorOptions,
  type FileIntegrityFailure,
} from './file-integrity-error.js';
export {
  WebhookVerificationError,
  type WebhookVerificationCode,
  type WebhookVerificationErrorOptions,
} from './webhook-verification-error.js';
export { HandlerError, type HandlerErrorOptions } from './handler-error.js';
export { ConfigurationError, type ConfigurationErrorOptions } from './configuration-error.js';
export {
  isAmsError,
  isServiceError,
  isRateLimitError,
  isTransportError,
  isTimeoutError,
  isValidationError,
  isCryptoError,
  isWebhookVerificationError,
  isHandlerError,
  isConfigurationError,
} from './guards.js';
export {
  toServiceError,
  parseRetryAfter,
  readHeader,
  type ErrorResponseParts,
  type HeaderSource,
} from './parse-error-response.js';
export { redactSecrets, redactParams } from './redact.js';
