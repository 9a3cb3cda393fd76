import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../packages/sdk/src/core/errors/index.js';
import {
  isTextPayload,
  MessagePayloadSchema,
  parseMessagePayload,
  SendMessageRequestSchema,
} from '../../../../packages/sdk/src/core/protocol/index.js';

describe('parseMessagePayload', () => {
  it('accepts text payloads (property)', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const p = parseMessagePayload({ type: 'text', text });
        expect(isTextPayload(p)).toBe(true);
        if (isTextPayload(p)) expect(p.text).toBe(text);
      }),
    );
  });

  it('keeps other payload types open', () => {
    const p = parseMessagePayload({ type: 'image', url: 'x', width: 3 });
    expect(isTextPayload(p)).toBe(false);
    expect(p).toEqual({ type: 'image', url: 'x', width: 3 });
  });

  it('reports a text payload without text at text', () => {
    try {
      parseMessagePayload({ type: 'text' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).issues.map((i) => i.path)).toEqual([['text']]);
    }
    expect(MessagePayloadSchema.safeParse({ type: 'text', text: 5 }).success).toBe(false);
  });

  it.each([[{}], [{ type: '' }], [{ type: 7 }], [null], ['text'], [[{ type: 'text', text: 'x' }]]])(
    'rejects %j',
    (input) => {
      expect(() => parseMessagePayload(input)).toThrow(ValidationError);
    },
  );
});

describe('SendMessageRequestSchema', () => {
  it('accepts conversation_id + payload', () => {
    const body = { conversation_id: 'c1', payload: { type: 'text', text: 'hello' } };
    expect(SendMessageRequestSchema.parse(body)).toEqual(body);
    expect(SendMessageRequestSchema.safeParse({ payload: body.payload }).success).toBe(false);
  });
});
