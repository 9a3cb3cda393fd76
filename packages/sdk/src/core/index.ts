/**
 * Platform-neutral core: limits, errors and (in protocol/) the wire model.
 * Uses only Web-standard APIs.
 *
 * @module
 */
export * from './errors/index.js';
export { systemClock, ManualClock, type Clock, type TimerHandle, type TimerOptions } from './clock.js';
export { toBase64, fromBase64, isBase64, utf8, fromUtf8, concatBytes } from './encoding.js';
export { LIMITS, WEBHOOK_RETRY_SCHEDULE_MS, WEBHOOK_MAX_FAILURES, type Limits } from './limits.js';
