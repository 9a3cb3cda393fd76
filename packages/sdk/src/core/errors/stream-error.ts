import { ERROR_CLASS_ID } from './base.js';
import type { AnyErrorCode, StreamErrorValue } from './codes.js';
import { ServiceError } from './service-error.js';

/** Options of {@link StreamError}. */
export interface StreamErrorOptions {
  /** The stream error value the service gave. */
  reason: StreamErrorValue;
  /** The catalogue code: `STREAM_TIMEOUT` (both timeouts), `RELATION_REVOKED`, `RATE_LIMITED` or `NOT_FOUND`. */
  code: AnyErrorCode;
  /** HTTP status of the code (408, 403, 429, 404). */
  status: number;
  /** Display text. */
  message: string;
  /** The stream concerned. */
  streamId: string;
  cause?: unknown;
}

/**
 * The service ended a stream (`stream.error` on WebSocket, an error answer
 * on REST). Streams are never retried automatically: start a new one if the
 * reply still matters.
 *
 * | `reason` | `code` | When |
 * |---|---|---|
 * | `stream_timeout` | `STREAM_TIMEOUT` (408) | 5 minutes without the end |
 * | `orphan_detected` | `STREAM_TIMEOUT` (408) | 30 s without a delta |
 * | `client_offline` | `NOT_FOUND` (404) | the user has no connected device |
 * | `peer_revoked` | `RELATION_REVOKED` (403) | the relation was revoked during the stream |
 * | `rate_limited` | `RATE_LIMITED` (429) | too many open streams for the agent |
 *
 * @example
 * ```ts
 * try { await writer.end(); } catch (err) {
 *   if (err instanceof StreamError && err.reason === 'client_offline') await agent.send(conversationId, text);
 * }
 * ```
 */
export class StreamError extends ServiceError {
  /** @internal */
  static override readonly [ERROR_CLASS_ID]: string = 'StreamError';
  override readonly name: string = 'StreamError';
  /** The stream error value. */
  readonly reason: StreamErrorValue;
  /** The stream concerned. */
  readonly streamId: string;

  constructor(options: StreamErrorOptions) {
    super({
      code: options.code,
      status: options.status,
      message: options.message,
      params: { reason: options.reason, stream_id: options.streamId },
      cause: options.cause,
    });
    this.reason = options.reason;
    this.streamId = options.streamId;
  }
}
