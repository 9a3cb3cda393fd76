/**
 * Limits of streamed replies: the two the service interface fixes (5 minutes
 * in total, 30 s without a delta; also `LIMITS.STREAM_MAX_MS` and
 * `LIMITS.STREAM_IDLE_MAX_MS`) and the reference server's own choices
 * (docs/streaming.md, "Gap decisions").
 *
 * @module
 */
import { LIMITS } from '../limits.js';

/** Limits of streamed replies. */
export const STREAM_LIMITS = Object.freeze({
  /** A stream lasts at most this long from its start: 5 minutes (spec). */
  TOTAL_MS: LIMITS.STREAM_MAX_MS,
  /** At most this long without a delta: 30 s (spec). */
  IDLE_MS: LIMITS.STREAM_IDLE_MAX_MS,
  /** Open streams per agent at once (gap decision); one more is refused with `rate_limited`. */
  MAX_CONCURRENT_PER_AGENT: 8,
  /** Plaintext bytes of one delta (gap decision); the writer splits longer text. */
  MAX_DELTA_BYTES: 8_192,
  /** Base64 characters of one sealed delta (its plaintext limit plus the tag). */
  MAX_DELTA_CIPHERTEXT_CHARS: 10_944,
  /** Deltas in one REST batch (webhook mode). */
  MAX_BATCH_DELTAS: 256,
  /** Base64 characters of the sealed stream-key envelope. */
  MAX_KEY_ENVELOPE_CHARS: 65_536,
  /** Base64 characters of a sealed abort reason. */
  MAX_ABORT_CIPHERTEXT_CHARS: 1_388,
  /** Highest sequence number of a stream (gap decision). */
  MAX_SEQ: 1_000_000,
  /** Characters of a stream id. */
  MAX_STREAM_ID_CHARS: 64,
});
