import { describe, expect, it } from 'vitest';
import { isWebhookVerificationError } from '../../../packages/sdk/src/core/errors/guards.js';
import { parseWebhookDelivery, toWebhookDelivery } from '../../../packages/sdk/src/webhook/index.js';

const base = {
  type: 'message.new',
  version: 'v1',
  wire_envelope: 'AAEC',
  metadata: { conversation_id: 'c1', sender_id: 's1', created_at: '2026-01-01T00:00:00.000Z' },
};
const ref = { type: 'r2', object_key: 'a/b/c', size: 10, content_type: 'application/octet-stream' };

function field(value: unknown): unknown {
  try {
    toWebhookDelivery(value);
  } catch (err) {
    if (isWebhookVerificationError(err) && err.code === 'WEBHOOK_PAYLOAD_INVALID' && err.status === 400) {
      return err.params['field'];
    }
    throw err;
  }
  return undefined;
}

describe('toWebhookDelivery', () => {
  it('returns a clean copy of a valid inline delivery, dropping unknown fields', () => {
    const d = toWebhookDelivery({ ...base, extra: 1, metadata: { ...base.metadata, more: true } });
    expect(d).toEqual(base);
    expect('extra' in d).toBe(false);
  });

  it('accepts a ref delivery with a null envelope, and refuses one whose envelope is absent', () => {
    expect(toWebhookDelivery({ ...base, wire_envelope: null, ref }).ref).toEqual(ref);
    const { wire_envelope: _omit, ...noEnvelope } = base;
    expect(field({ ...noEnvelope, ref })).toBe('wire_envelope');
  });

  it('passes unknown event types through', () => {
    expect(toWebhookDelivery({ ...base, type: 'future.event' }).type).toBe('future.event');
  });

  it.each([
    [null, 'body'],
    [[], 'body'],
    [{ ...base, type: '' }, 'type'],
    [{ ...base, version: 'v2' }, 'version'],
    [{ ...base, wire_envelope: null }, 'ref'],
    [{ ...base, wire_envelope: 5 }, 'wire_envelope'],
    [{ ...base, wire_envelope: 'AAE' }, 'wire_envelope'],
    [{ ...base, wire_envelope: 'AB==' }, 'wire_envelope'],
    [{ ...base, ref }, 'ref'],
    [{ ...base, ref: null }, 'ref'],
    [{ ...base, type: 'x'.repeat(101) }, 'type'],
    [{ ...base, metadata: { ...base.metadata, conversation_id: 'a\u0000b' } }, 'metadata.conversation_id'],
    [{ ...base, metadata: { ...base.metadata, created_at: '2026-01-01T00:00:00Z' } }, 'metadata.created_at'],
    [{ ...base, wire_envelope: null, ref: { ...ref, object_key: 'a b' } }, 'ref.object_key'],
    [{ ...base, wire_envelope: null, ref: { ...ref, content_type: 'binary' } }, 'ref.content_type'],
    [{ ...base, wire_envelope: null, ref: { ...ref, type: 's3' } }, 'ref.type'],
    [{ ...base, wire_envelope: null, ref: { ...ref, size: -1 } }, 'ref.size'],
    [{ ...base, wire_envelope: null, ref: { ...ref, size: 1.5 } }, 'ref.size'],
    [{ ...base, wire_envelope: null, ref: { ...ref, object_key: '' } }, 'ref.object_key'],
    [{ ...base, wire_envelope: null, ref: { ...ref, object_key: 'a/../b' } }, 'ref.object_key'],
    [{ ...base, wire_envelope: null, ref: { ...ref, content_type: 7 } }, 'ref.content_type'],
    [{ ...base, wire_envelope: null, ref: 'x' }, 'ref'],
    [{ ...base, metadata: undefined }, 'metadata'],
    [{ ...base, metadata: { ...base.metadata, sender_id: 1 } }, 'metadata.sender_id'],
    [{ ...base, metadata: { ...base.metadata, created_at: 'yesterday' } }, 'metadata.created_at'],
    [
      { ...base, metadata: { ...base.metadata, created_at: '2026-13-45T00:00:00.000Z' } },
      'metadata.created_at',
    ],
  ])('refuses %j naming field %s', (value, name) => {
    expect(field(value)).toBe(name);
  });
});

describe('parseWebhookDelivery', () => {
  it('parses UTF-8 JSON bytes', () => {
    const bytes = new TextEncoder().encode(
      JSON.stringify({ ...base, metadata: { ...base.metadata, sender_id: 'usér' } }),
    );
    expect(parseWebhookDelivery(bytes).metadata.sender_id).toBe('usér');
  });

  it.each([
    ['invalid UTF-8', new Uint8Array([0x7b, 0xff, 0x7d])],
    ['not JSON', new TextEncoder().encode('{"type":')],
    ['empty', new Uint8Array()],
  ])('refuses %s with WEBHOOK_PAYLOAD_INVALID', (_n, bytes) => {
    expect(() => parseWebhookDelivery(bytes)).toThrow(
      expect.objectContaining({ code: 'WEBHOOK_PAYLOAD_INVALID' }),
    );
  });
});
