/**
 * The service's error catalogue in one table: every code, its HTTP status, its
 * catalogue section and what a client should do about it.
 *
 * Five statuses are not given by the service interface and are our choice
 * (marked `gap: true`); docs/errors.md gives the reasons.
 *
 * @module
 */

/**
 * What a client does when it meets a code.
 *
 * - `retry`: transient; retry automatically after `retryAfterMs` (or a jittered back-off).
 * - `refresh`: the access token expired; refresh credentials and retry once.
 * - `reauthenticate`: credentials are missing or no longer accepted; a human must sign in again.
 * - `fail`: permanent for this request; fix the input or the state, do not repeat it unchanged.
 * - `terminal`: the agent must stop: never retry and never reconnect.
 */
export type ErrorDisposition = 'retry' | 'refresh' | 'reauthenticate' | 'fail' | 'terminal';

/** Section of the catalogue a code belongs to. */
export type ErrorCategory =
  | 'authentication'
  | 'permission'
  | 'validation'
  | 'not_found'
  | 'conflict'
  | 'rate_limit'
  | 'timeout'
  | 'webhook'
  | 'client';

/** One row of the catalogue. */
export interface ErrorCatalogueEntry {
  /** HTTP status the service answers with. */
  readonly status: number;
  /** Catalogue section. */
  readonly category: ErrorCategory;
  /** What a client should do. */
  readonly disposition: ErrorDisposition;
  /** True when the service interface leaves the status "not shown" and we chose it. */
  readonly gap?: true;
}

/** The error catalogue: code → status, category, disposition. */
export const ERROR_CATALOGUE = {
  // Authentication
  UNAUTHORIZED: { status: 401, category: 'authentication', disposition: 'reauthenticate' },
  TOKEN_EXPIRED: { status: 401, category: 'authentication', disposition: 'refresh' },
  AGENT_TOKEN_INVALID: { status: 401, category: 'authentication', disposition: 'terminal' },
  TURNSTILE_FAILED: { status: 403, category: 'authentication', disposition: 'fail' },
  ACCOUNT_LOCKED: { status: 423, category: 'authentication', disposition: 'fail' },
  PASSKEY_VERIFICATION_FAILED: { status: 401, category: 'authentication', disposition: 'fail' },
  EMAIL_VERIFICATION_REQUIRED: { status: 403, category: 'authentication', disposition: 'fail' },
  // Permission
  FORBIDDEN: { status: 403, category: 'permission', disposition: 'fail' },
  KEY_ENUMERATION_BLOCKED: { status: 403, category: 'permission', disposition: 'fail' },
  ARTIFACT_NOT_FORWARDABLE: { status: 403, category: 'permission', disposition: 'fail' },
  AGENT_RESTRICTED: { status: 403, category: 'permission', disposition: 'fail' },
  AGENT_SUSPENDED: { status: 403, category: 'permission', disposition: 'terminal' },
  AGENT_BANNED: { status: 403, category: 'permission', disposition: 'terminal' },
  NOT_CONVERSATION_MEMBER_UPLOAD: { status: 403, category: 'permission', disposition: 'fail' },
  CONVERSATION_FORBIDDEN: { status: 403, category: 'permission', disposition: 'fail' },
  GRANT_DENIED: { status: 403, category: 'permission', disposition: 'fail' },
  GRANT_EXPIRED: { status: 403, category: 'permission', disposition: 'fail' },
  GRANT_REVOKED: { status: 403, category: 'permission', disposition: 'fail' },
  RELATION_REVOKED: { status: 403, category: 'permission', disposition: 'fail' },
  // Validation
  VALIDATION_ERROR: { status: 400, category: 'validation', disposition: 'fail' },
  FORWARD_TARGET_LIMIT: { status: 400, category: 'validation', disposition: 'fail' },
  DEVICE_LIMIT_EXCEEDED: { status: 400, category: 'validation', disposition: 'fail' },
  SHA256_MISMATCH: { status: 400, category: 'validation', disposition: 'fail' },
  MANIFEST_TOO_LARGE: { status: 413, category: 'validation', disposition: 'fail' },
  WEBHOOK_PAYLOAD_TOO_LARGE: { status: 413, category: 'validation', disposition: 'fail' },
  FILE_TOO_LARGE: { status: 413, category: 'validation', disposition: 'fail' },
  INVALID_ENVELOPE: { status: 400, category: 'validation', disposition: 'fail' },
  INVALID_SIGNATURE: { status: 400, category: 'validation', disposition: 'fail' },
  // Not found
  NOT_FOUND: { status: 404, category: 'not_found', disposition: 'fail' },
  USER_NOT_FOUND: { status: 404, category: 'not_found', disposition: 'fail' },
  GROUP_NOT_FOUND: { status: 404, category: 'not_found', disposition: 'fail' },
  CONVERSATION_NOT_FOUND: { status: 404, category: 'not_found', disposition: 'fail' },
  MESSAGE_NOT_FOUND: { status: 404, category: 'not_found', disposition: 'fail' },
  AGENT_NOT_FOUND: { status: 404, category: 'not_found', disposition: 'fail' },
  AGENT_NOT_REGISTERED: { status: 404, category: 'not_found', disposition: 'fail' },
  KEY_BACKUP_NOT_FOUND: { status: 404, category: 'not_found', disposition: 'fail' },
  MIGRATION_SESSION_EXPIRED: { status: 404, category: 'not_found', disposition: 'fail' },
  INVITE_CODE_NOT_FOUND: { status: 404, category: 'not_found', disposition: 'fail' },
  AGENT_PUBKEY_NOT_FOUND: { status: 404, category: 'not_found', disposition: 'fail', gap: true },
  // Quota and conflict
  AGENT_LIMIT_EXCEEDED: { status: 403, category: 'conflict', disposition: 'fail' },
  GROUP_KEY_VERSION_CONFLICT: { status: 409, category: 'conflict', disposition: 'fail' },
  ARTIFACT_REVISION_CONFLICT: { status: 409, category: 'conflict', disposition: 'fail' },
  MANIFEST_VERSION_CONFLICT: { status: 409, category: 'conflict', disposition: 'fail' },
  DEVICE_NAME_TAKEN: { status: 409, category: 'conflict', disposition: 'fail' },
  GROUP_KEY_ROTATION_LIMIT: { status: 429, category: 'rate_limit', disposition: 'retry' },
  AGENT_KEYS_MISMATCH: { status: 409, category: 'conflict', disposition: 'fail' },
  // Rate limits
  RATE_LIMITED: { status: 429, category: 'rate_limit', disposition: 'retry' },
  MESSAGE_RATE_LIMITED: { status: 429, category: 'rate_limit', disposition: 'retry' },
  FILE_UPLOAD_RATE_LIMITED: { status: 429, category: 'rate_limit', disposition: 'retry' },
  MANIFEST_UPDATE_RATE_LIMITED: { status: 429, category: 'rate_limit', disposition: 'retry' },
  TOKEN_ROTATION_RATE_LIMITED: { status: 429, category: 'rate_limit', disposition: 'retry' },
  // Timeouts
  DEVICE_AUTH_TIMEOUT: { status: 408, category: 'timeout', disposition: 'fail' },
  WEBHOOK_DELIVERY_TIMEOUT: { status: 408, category: 'timeout', disposition: 'retry' },
  STREAM_TIMEOUT: { status: 408, category: 'timeout', disposition: 'fail' },
  // Webhook
  WEBHOOK_SIGNATURE_INVALID: { status: 401, category: 'webhook', disposition: 'fail' },
  WEBHOOK_TIMESTAMP_SKEW: { status: 400, category: 'webhook', disposition: 'fail' },
  WEBHOOK_DELIVERY_DUPLICATE: { status: 409, category: 'webhook', disposition: 'fail', gap: true },
  WEBHOOK_PAYLOAD_INVALID: { status: 400, category: 'webhook', disposition: 'fail', gap: true },
  WEBHOOK_AGENT_UNREACHABLE: { status: 409, category: 'webhook', disposition: 'fail', gap: true },
  // Client-side report
  DECRYPT_FAILURE: { status: 400, category: 'client', disposition: 'fail', gap: true },
} as const satisfies Record<string, ErrorCatalogueEntry>;

/** Every error code of the service's catalogue. Branch on `code` only. */
export type ErrorCode = keyof typeof ERROR_CATALOGUE;

declare const unknownErrorCode: unique symbol;

/**
 * A code outside this SDK's catalogue (sent by a newer service), kept exactly
 * as the service sent it. Branded: no string literal is one, so a typo such
 * as `isServiceError(err, 'RELATION_REVOKD')` does not compile. Only
 * {@link toErrorCode} (and the SDK's own parsing of error answers) makes one.
 */
export type UnknownErrorCode = string & { readonly [unknownErrorCode]: 'UnknownErrorCode' };

/**
 * A code as received from the wire: a catalogue code, or an unknown code kept
 * as-is for forward compatibility ({@link UnknownErrorCode}).
 */
export type AnyErrorCode = ErrorCode | UnknownErrorCode;

/**
 * Codes of `TransportError`. `TRANSPORT_REPLACED`: another copy of the agent
 * that does not share delivery took the WebSocket over (close 4012);
 * `TRANSPORT_CONNECTION_LIMIT`: the agent already has the most live sockets
 * the service allows (close 4014). Both stop the WebSocket for good.
 */
export type TransportErrorCode =
  | 'TRANSPORT_NETWORK'
  | 'TRANSPORT_BAD_RESPONSE'
  | 'TRANSPORT_CLOSED'
  | 'TRANSPORT_PROTOCOL'
  | 'TRANSPORT_REPLACED'
  | 'TRANSPORT_CONNECTION_LIMIT';

/** Codes of `CryptoError`. */
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
  | 'GROUP_ROSTER_INVALID'
  | 'DECISION_REFUSED'
  | 'MIGRATION_VERIFICATION_FAILED'
  | 'FILE_CORRUPT';

/** Codes of `WebhookVerificationError`. */
export type WebhookVerificationCode =
  | 'WEBHOOK_HEADER_MISSING'
  | 'WEBHOOK_TIMESTAMP_SKEW'
  | 'WEBHOOK_SIGNATURE_INVALID'
  | 'WEBHOOK_PAYLOAD_INVALID'
  | 'WEBHOOK_PAYLOAD_TOO_LARGE';

/** Codes the SDK itself raises, beside the catalogue's. */
export type ClientErrorCode =
  | TransportErrorCode
  | CryptoErrorCode
  | WebhookVerificationCode
  | 'TIMEOUT'
  | 'VALIDATION_ERROR'
  | 'HANDLER_FAILED'
  | 'CONFIGURATION_ERROR';

/**
 * The code of any SDK error (`AmsError.code`): a catalogue code, a code the
 * SDK raises itself, or an unknown code from a newer service.
 */
export type AmsErrorCode = ErrorCode | ClientErrorCode | UnknownErrorCode;

/**
 * The code of a wire string: the catalogue code when it is one, else the
 * string kept as an {@link UnknownErrorCode}.
 *
 * @example
 * ```ts
 * toErrorCode('NOT_FOUND'); // 'NOT_FOUND' (an ErrorCode)
 * toErrorCode('NEW_CODE_FROM_2027'); // kept, typed UnknownErrorCode
 * ```
 */
export function toErrorCode(code: string): AnyErrorCode {
  return code as AnyErrorCode;
}

/** All catalogue codes, in catalogue order. */
export const ERROR_CODES: readonly ErrorCode[] = Object.freeze(Object.keys(ERROR_CATALOGUE) as ErrorCode[]);

/** True when `code` is a code of the catalogue. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CATALOGUE, code);
}

/** The HTTP status of a catalogue code. */
export function statusOf(code: ErrorCode): number {
  return ERROR_CATALOGUE[code].status;
}

/**
 * What to do about an error: the catalogue's disposition for a known code;
 * for an unknown code, a decision from the HTTP status (429, 502–504 and 408
 * retry; 401 reauthenticates; everything else fails).
 */
export function dispositionOf(code: AmsErrorCode, status?: number): ErrorDisposition {
  if (isErrorCode(code)) return ERROR_CATALOGUE[code].disposition;
  if (status === undefined) return 'fail';
  if (status === 429 || status === 408 || status === 502 || status === 503 || status === 504) return 'retry';
  if (status === 401) return 'reauthenticate';
  return 'fail';
}

/** True when the code means the agent must stop and never reconnect. */
export function isTerminalCode(code: AmsErrorCode): boolean {
  return dispositionOf(code) === 'terminal';
}

/** The five reasons of the envelope specification, in the order `open` checks them. */
export const ENVELOPE_FAILURE_REASONS = ['signature', 'no_wrap', 'unwrap', 'aead', 'parse'] as const;
/**
 * SDK extensions, checked by the receivers (Agent, UserClient) after `open`
 * succeeded: `event_type` (the delivery's type does not fit the signed event
 * type or sender), `stale` (the signed `created_at` is outside the
 * acceptance window: a replay or a pre-dated envelope) and `duplicate` (an
 * inbox read listed the same signed message twice: a replay by the service).
 */
export const DELIVERY_FAILURE_REASONS = ['event_type', 'stale', 'duplicate'] as const;
/** Every DECRYPT_FAILURE reason: the five of `open`, then the receivers' three. */
export const DECRYPT_FAILURE_REASONS = [...ENVELOPE_FAILURE_REASONS, ...DELIVERY_FAILURE_REASONS] as const;
/** Why an envelope could not be opened. */
export type DecryptFailureReason = (typeof DECRYPT_FAILURE_REASONS)[number];

/** Error values of a stream (streams are not retried automatically). */
export const STREAM_ERROR_VALUES = [
  'stream_timeout',
  'orphan_detected',
  'client_offline',
  'peer_revoked',
  'rate_limited',
] as const;
/** An error value of a stream. */
export type StreamErrorValue = (typeof STREAM_ERROR_VALUES)[number];

/** `payload.reason` of an `artifact_response` whose status is `denied`. */
export const ARTIFACT_DENIED_REASONS = [
  'user_rejected',
  'user_timeout',
  'tool_not_supported_in_group',
  'permission_revoked',
  'tool_timeout',
  'tool_not_implemented',
] as const;
/** Why a user denied an artifact. */
export type ArtifactDeniedReason = (typeof ARTIFACT_DENIED_REASONS)[number];
