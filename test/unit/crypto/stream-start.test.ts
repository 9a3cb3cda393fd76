import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toBase64 } from '../../../packages/sdk/src/core/encoding.js';
import { streamKeyOf } from '../../../packages/sdk/src/crypto/stream/stream-start.js';

const ID = 'stream-01';
const key = new Uint8Array(32).fill(9);
const good = { messageId: ID, payload: { type: 'stream.open', stream_id: ID, key: toBase64(key) } };

describe('streamKeyOf', () => {
  it('returns the key of a stream.open of this stream', () => {
    expect(streamKeyOf(good, ID)).toEqual(key);
  });

  it.each([
    ['another payload type', { ...good, payload: { ...good.payload, type: 'text' } }],
    ['another stream id in the payload', { ...good, payload: { ...good.payload, stream_id: 'other' } }],
    ['another message id', { ...good, messageId: 'other' }],
    ['a short key', { ...good, payload: { ...good.payload, key: toBase64(new Uint8Array(31)) } }],
    ['a key that is not base64', { ...good, payload: { ...good.payload, key: '***' } }],
    ['no key', { ...good, payload: { type: 'stream.open', stream_id: ID } }],
    ['a key that is not a string', { ...good, payload: { ...good.payload, key: 32 } }],
  ])('refuses %s', (_, opened) => {
    expect(streamKeyOf(opened, ID)).toBeUndefined();
  });

  it('never throws, and accepts only a 32-byte key of this stream', () => {
    fc.assert(
      fc.property(fc.string(), fc.dictionary(fc.string(), fc.jsonValue()), (messageId, payload) => {
        const k = streamKeyOf({ messageId, payload }, ID);
        if (k !== undefined) {
          expect(k).toHaveLength(32);
          expect(messageId).toBe(ID);
          expect(payload['stream_id']).toBe(ID);
        }
      }),
    );
  });
});
