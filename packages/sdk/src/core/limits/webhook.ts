/**
 * The webhook rows of the service's V1 Limits table, one module-level
 * constant each, so that the `./webhook` entry bundles only the figures it
 * uses. `LIMITS` (core/limits.ts) holds the same values under the same
 * names; prefer it everywhere else.
 *
 * @module
 */
import { DAY_MS, SECOND_MS } from './units.js';

/** Webhook timestamp tolerance (upper bound), either direction: 300 s. */
export const WEBHOOK_TIMESTAMP_TOLERANCE_MS = 300 * SECOND_MS;
/** Webhook `delivery_id` de-duplication window: 24 h. */
export const WEBHOOK_DEDUP_WINDOW_MS = DAY_MS;
/** The service waits this long for a webhook response before it counts a timeout: 10 s. */
export const WEBHOOK_RESPONSE_TIMEOUT_MS = 10 * SECOND_MS;
/** Hard cap on a webhook body: 1 MB. Larger payloads travel as an object reference (`ref`). */
export const WEBHOOK_BODY_MAX_BYTES = 1_048_576;
/** Minimum size of a webhook secret, in bytes. */
export const WEBHOOK_SECRET_MIN_BYTES = 32;
