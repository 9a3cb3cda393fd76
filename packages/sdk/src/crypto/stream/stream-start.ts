/**
 * The one check of a `stream.start` key envelope, shared by every receiver
 * (the SDK's `StreamReceiver` and the dev console's): the opened envelope is
 * a `stream.open` payload of this very stream, and carries a key of the right
 * length.
 *
 * @module
 */
import { fromBase64 } from '../../core/encoding.js';
import { STREAM_KEY_BYTES, STREAM_OPEN_PAYLOAD_TYPE } from './stream-crypto.js';

/** What {@link streamKeyOf} reads of an opened key envelope. */
export interface OpenedStreamStart {
  readonly messageId: string;
  readonly payload: Readonly<Record<string, unknown>>;
}

/**
 * The stream key carried by an opened `stream.start` envelope, or `undefined`
 * when the envelope is not a `stream.open` of stream `streamId` (another type,
 * another stream id in the payload or as the message id, or a key that is not
 * {@link STREAM_KEY_BYTES} bytes of base64).
 */
export function streamKeyOf(opened: OpenedStreamStart, streamId: string): Uint8Array | undefined {
  const p = opened.payload;
  if (p['type'] !== STREAM_OPEN_PAYLOAD_TYPE || p['stream_id'] !== streamId || opened.messageId !== streamId)
    return undefined;
  const key = typeof p['key'] === 'string' ? fromBase64(p['key']) : undefined;
  return key?.length === STREAM_KEY_BYTES ? key : undefined;
}
