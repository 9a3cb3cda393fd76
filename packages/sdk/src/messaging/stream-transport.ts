/**
 * How a stream's frames reach the service: the agent's WebSocket (frames
 * `stream.*`) or REST (webhook mode: start, batches of deltas, end, abort).
 * Both report a stream error value as a {@link StreamError} and never retry.
 *
 * @module
 */
import type { AmsError } from '../core/errors/base.js';
import type { StreamErrorValue } from '../core/errors/codes.js';
import { StreamError } from '../core/errors/stream-error.js';
import { statusOf } from '../core/errors/codes.js';
import { STREAM_ERROR_CODES } from '../core/protocol/stream-frames.js';

/** The end of a stream on the wire (base64 fields). */
export interface StreamEndFields {
  readonly final_seq: number;
  readonly transcript_hash: string;
  readonly signature: string;
}

/** One stream's connection to the service. */
export interface StreamTransport {
  /** Sends the start; resolves once the service accepted the stream. */
  start(conversationId: string, wireEnvelope: string): Promise<void>;
  /** Queues one sealed delta (base64). */
  delta(seq: number, ciphertext: string): void;
  /** Bytes queued towards the service and not yet sent (back-pressure). */
  readonly bufferedAmount: number;
  /** Resolves once what is queued is below `lowWaterMark` bytes (or the stream failed). */
  drained(lowWaterMark: number): Promise<void>;
  /** Sends the end; resolves once the service relayed it. */
  end(fields: StreamEndFields): Promise<void>;
  /** Sends the abort (sealed reason, base64); resolves once relayed. */
  abort(ciphertext: string): Promise<void>;
  /** Why the stream cannot go on: the service's {@link StreamError}, or a lost connection. */
  readonly failure: AmsError | undefined;
  /** Calls `listener` once when the stream fails. */
  onFailure(listener: (error: AmsError) => void): void;
}

/** The {@link StreamError} of a stream error value. */
export function streamErrorOf(streamId: string, reason: StreamErrorValue, cause?: unknown): StreamError {
  const code = STREAM_ERROR_CODES[reason];
  return new StreamError({
    reason,
    code,
    status: statusOf(code),
    message: `The service ended the stream: ${reason}.`,
    streamId,
    cause,
  });
}
