/**
 * REST client core: `createRestClient` and its helpers.
 *
 * @module
 */
export {
  createRestClient,
  type BinaryResponse,
  type HttpMethod,
  type RateLimitKey,
  type RequestCallOptions,
  type RestClient,
  type RestRequestOptions,
  type RestResponse,
  type RestStreamOptions,
  type StreamResponse,
} from './client.js';
export type { StreamRequestOptions } from './stream.js';
export {
  clockSleep,
  DEFAULT_REST_OPTIONS,
  type ClientRateLimits,
  type CredentialsProvider,
  type RestClientOptions,
  type RetryOptions,
  type SleepFn,
} from './options.js';
export type { RateLimitedInfo, RestClientEventName, RestClientEvents, RetryInfo } from './events.js';
export { fullJitterDelay, isIdempotentMethod, retryReasonOf, type RetryReason } from './retry.js';
export { objectKeyPath, pathSegment, type QueryParams } from './paths.js';
export type { ResponseHeaders } from './attempt.js';
