import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  inboundOfFrame,
  looksLikeEvent,
  parseUnknownEventFrame,
} from '../../../../packages/sdk/src/agent/pipeline/frames.js';
import { isValidationError } from '../../../../packages/sdk/src/core/errors/index.js';
import { toBase64 } from '../../../../packages/sdk/src/core/encoding.js';
import { parseWsFrame } from '../../../../packages/sdk/src/core/protocol/ws-frames.js';

const metadata = { conversation_id: 'c1', sender_id: 'system', created_at: '2026-03-01T12:00:00.000Z' };
const DELIVERY = '01890f3e-1c2a-7b3c-8d4e-5f6a7b8c9d0e';

describe('unknown-type event frames', () => {
  it('a delivery.failed frame is an event: validated and turned into an inbound event', () => {
    const frame = {
      type: 'delivery.failed',
      version: 'v1',
      wire_envelope: toBase64(new Uint8Array([1, 2, 3])),
      metadata,
      delivery_id: DELIVERY,
    };
    expect(looksLikeEvent(frame)).toBe(true);
    expect(inboundOfFrame(parseUnknownEventFrame(frame))).toEqual({
      type: 'delivery.failed',
      deliveryId: DELIVERY,
      wireEnvelope: 'AQID',
      ref: undefined,
      metadata,
      payload: undefined,
    });
  });

  it('a server error frame is not an event', () => {
    expect(looksLikeEvent({ type: 'error', error: { code: 'VALIDATION_ERROR' } })).toBe(false);
  });

  it('refuses an envelope together with a ref, no content at all, or a bad delivery id', () => {
    const ref = { type: 'r2', object_key: 'obj_1', size: 3, content_type: 'application/octet-stream' };
    for (const frame of [
      { type: 'x.y', delivery_id: DELIVERY, wire_envelope: 'AQID', ref },
      { type: 'x.y', delivery_id: DELIVERY },
      { type: 'x.y', delivery_id: '', payload: {} },
      { type: 'x.y', delivery_id: DELIVERY, wire_envelope: 'not base64!' },
    ]) {
      let error: unknown;
      try {
        parseUnknownEventFrame(frame);
      } catch (err) {
        error = err;
      }
      expect(isValidationError(error)).toBe(true);
    }
  });

  it('known frames keep their delivery id; one without a valid id gets none', () => {
    const parsed = parseWsFrame(
      JSON.stringify({
        type: 'agent.governance',
        payload: { agent_id: 'a', level: 'L1' },
        delivery_id: DELIVERY,
      }),
    );
    if (parsed.kind !== 'event') throw new Error('expected an event frame');
    expect(inboundOfFrame(parsed.frame).deliveryId).toBe(DELIVERY);
    const noId = parseWsFrame(JSON.stringify({ type: 'agent.governance', payload: {} }));
    if (noId.kind !== 'event') throw new Error('expected an event frame');
    expect(inboundOfFrame(noId.frame).deliveryId).toBeUndefined();
  });

  it('property: any input either parses to a frame with content or throws a ValidationError only', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.anything(),
          fc.record({
            type: fc.string(),
            delivery_id: fc.oneof(fc.string(), fc.uuid()),
            wire_envelope: fc.oneof(fc.constant(null), fc.base64String(), fc.string()),
            payload: fc.oneof(fc.constant(undefined), fc.dictionary(fc.string(), fc.jsonValue())),
            metadata: fc.oneof(fc.constant(metadata), fc.anything()),
          }),
        ),
        (input) => {
          try {
            const frame = parseUnknownEventFrame(input as Record<string, unknown>);
            const inbound = inboundOfFrame(frame);
            expect(inbound.deliveryId).toBeTypeOf('string');
            expect(
              inbound.wireEnvelope !== undefined ||
                inbound.ref !== undefined ||
                inbound.payload !== undefined,
            ).toBe(true);
          } catch (err) {
            expect(isValidationError(err)).toBe(true);
          }
        },
      ),
    );
  });
});
