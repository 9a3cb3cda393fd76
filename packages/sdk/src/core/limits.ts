/**
 * Every limit of the service's V1 Limits table, as one named constant each.
 *
 * Durations are in milliseconds (suffix `_MS`) unless the name says otherwise;
 * sizes are in bytes (suffix `_BYTES`). These are the V1 defaults of the service.
 *
 * The webhook rows and the object/file rows are defined in `limits/webhook.ts`
 * and `limits/objects.ts`, one module-level constant each, so that the
 * `./webhook` entry bundles the few figures it uses instead of this whole
 * table; the table below holds them under the same names.
 *
 * @module
 */

import { FILE_MAX_BYTES, FILE_UPLOADS_PER_SECOND, OBJECT_FETCHES_PER_SECOND } from './limits/objects.js';
import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from './limits/units.js';
import {
  WEBHOOK_BODY_MAX_BYTES,
  WEBHOOK_DEDUP_WINDOW_MS,
  WEBHOOK_RESPONSE_TIMEOUT_MS,
  WEBHOOK_SECRET_MIN_BYTES,
  WEBHOOK_TIMESTAMP_TOLERANCE_MS,
} from './limits/webhook.js';

/** The V1 limits of the service, in one frozen table. */
export const LIMITS = Object.freeze({
  /** Lifetime of a user access token (JWT): 300 s. */
  ACCESS_TOKEN_TTL_MS: 300 * SECOND_MS,
  /** Lifetime of a user refresh token (cookie Max-Age): 30 days. */
  REFRESH_TOKEN_TTL_MS: 30 * DAY_MS,
  /** Failed password logins before the account locks. */
  LOGIN_MAX_FAILURES: 5,
  /** How long a locked account stays locked: 15 minutes. */
  LOGIN_LOCK_MS: 15 * MINUTE_MS,
  /** Minimum length of `account_password`, in characters. */
  ACCOUNT_PASSWORD_MIN_CHARS: 8,
  /** Minimum length of `display_name`, in user-perceived characters. */
  DISPLAY_NAME_MIN_CHARS: 2,
  /** Maximum length of `display_name`, in user-perceived characters. */
  DISPLAY_NAME_MAX_CHARS: 24,
  /** The WebSocket `auth` frame must arrive within this time of the upgrade: 5 s. */
  WS_AUTH_DEADLINE_MS: 5 * SECOND_MS,
  /** Agent token regenerations allowed per window. */
  TOKEN_REGENERATIONS_PER_WINDOW: 5,
  /** The window of `TOKEN_REGENERATIONS_PER_WINDOW`: 24 h. */
  TOKEN_REGENERATION_WINDOW_MS: DAY_MS,
  /** Grace period of the old token and old public key after a normal regeneration: 7 days. */
  TOKEN_GRACE_MS: 7 * DAY_MS,
  /** Webhook timestamp tolerance (upper bound), either direction: 300 s. */
  WEBHOOK_TIMESTAMP_TOLERANCE_MS,
  /** Webhook `delivery_id` de-duplication window: 24 h. */
  WEBHOOK_DEDUP_WINDOW_MS,
  /** The service waits this long for a webhook response before it counts a timeout: 10 s. */
  WEBHOOK_RESPONSE_TIMEOUT_MS,
  /** Hard cap on a webhook body: 1 MB. Larger payloads travel as an object reference (`ref`). */
  WEBHOOK_BODY_MAX_BYTES,
  /** Minimum size of a webhook secret, in bytes. */
  WEBHOOK_SECRET_MIN_BYTES,
  /** How long the pending queue of an unreachable agent is kept: 24 h. */
  PENDING_QUEUE_TTL_MS: DAY_MS,
  /** Retention of delivery log entries: 30 days. */
  DELIVERY_LOG_RETENTION_MS: 30 * DAY_MS,
  /** Object fetches (`GET /r2/<key>`) per second per agent. */
  OBJECT_FETCHES_PER_SECOND,
  /** Messages sent per second per agent. */
  MESSAGES_PER_SECOND: 5,
  /** File uploads per second per agent. */
  FILE_UPLOADS_PER_SECOND,
  /** Maximum size of one file: 100 MB. */
  FILE_MAX_BYTES,
  /** Hard cap on a capability manifest: 128 KB. */
  MANIFEST_MAX_BYTES: 128 * 1024,
  /** A warning is raised for capability manifests at or above 64 KB. */
  MANIFEST_WARN_BYTES: 64 * 1024,
  /** Capability manifest updates per window per agent. */
  MANIFEST_UPDATES_PER_WINDOW: 1,
  /** The window of `MANIFEST_UPDATES_PER_WINDOW`: 1 minute. */
  MANIFEST_UPDATE_WINDOW_MS: MINUTE_MS,
  /** Agents per user (operator-configurable default). */
  AGENTS_PER_USER: 50,
  /** Devices per account. */
  DEVICES_PER_ACCOUNT: 5,
  /** Forward targets per forward. */
  FORWARD_TARGETS_MAX: 10,
  /** Group key rotations per window per conversation. */
  GROUP_KEY_ROTATIONS_PER_WINDOW: 6,
  /** The window of `GROUP_KEY_ROTATIONS_PER_WINDOW`: 1 hour. */
  GROUP_KEY_ROTATION_WINDOW_MS: HOUR_MS,
  /** Device authorisation must complete within 60 s. */
  DEVICE_AUTH_TIMEOUT_MS: 60 * SECOND_MS,
  /** A stream may last at most 5 minutes in total. */
  STREAM_MAX_MS: 5 * MINUTE_MS,
  /** A stream may go at most 30 s without a delta. */
  STREAM_IDLE_MAX_MS: 30 * SECOND_MS,
} as const);

/** Type of the {@link LIMITS} table. */
export type Limits = typeof LIMITS;

/**
 * The webhook retry schedule: the delay before the next attempt after failure N
 * (index 0 = after the 1st failure). After the 8th failure the agent is marked
 * `unreachable` and retries stop.
 */
export const WEBHOOK_RETRY_SCHEDULE_MS: readonly number[] = Object.freeze([
  0,
  30 * SECOND_MS,
  2 * MINUTE_MS,
  8 * MINUTE_MS,
  32 * MINUTE_MS,
  2 * HOUR_MS,
  6 * HOUR_MS,
]);

/** The failure count at which the agent becomes `unreachable` and retries stop. */
export const WEBHOOK_MAX_FAILURES = 8;
