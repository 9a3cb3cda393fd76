import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../packages/sdk/src/core/errors/index.js';
import {
  isReferencedDelivery,
  parseJson,
  parseWebhookDeliveryBody,
  WebhookDeliveryBodySchema,
} from '../../../../packages/sdk/src/core/protocol/index.js';
import { inlineBody, isoMillis, referencedBody } from './fixtures.js';

function pathsOf(input: unknown): string[] {
  try {
    parseWebhookDeliveryBody(input);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).issues.map((i) => i.path.join('.'));
  }
  return [];
}

describe('parseWebhookDeliveryBody', () => {
  it('accepts an inline delivery', () => {
    const body = parseWebhookDeliveryBody(inlineBody());
    expect(isReferencedDelivery(body)).toBe(false);
    expect(body.metadata.created_at).toBe('2026-03-01T12:34:56.789Z');
  });

  it('accepts a referenced (oversize) delivery', () => {
    const body = parseWebhookDeliveryBody(referencedBody());
    expect(isReferencedDelivery(body)).toBe(true);
    if (isReferencedDelivery(body)) expect(body.ref.object_key).toBe('deliveries/2026/03/abc123');
  });

  it('parses raw bytes through parseJson', () => {
    const bytes = new TextEncoder().encode(JSON.stringify(inlineBody()));
    expect(parseWebhookDeliveryBody(parseJson(bytes)).type).toBe('message.new');
  });

  it('keeps unknown fields and unknown event types', () => {
    const body = parseWebhookDeliveryBody({ ...inlineBody(), type: 'future.event', trace: 'abc' });
    expect(body.type).toBe('future.event');
    expect((body as Record<string, unknown>)['trace']).toBe('abc');
  });

  it('requires exactly one of wire_envelope and ref', () => {
    expect(pathsOf({ ...inlineBody(), ref: referencedBody()['ref'] })).toEqual(['ref']);
    const { ref: _ref, ...noRef } = referencedBody();
    expect(pathsOf(noRef)).toEqual(['ref']);
    const { wire_envelope: _w, ...neither } = inlineBody();
    expect(pathsOf(neither)).toEqual(['wire_envelope']);
    expect(pathsOf({ ...inlineBody(), ref: null })).toEqual(['ref']);
  });

  it.each([
    ['version v2', { version: 'v2' }, 'version'],
    ['missing version', { version: undefined }, 'version'],
    ['empty type', { type: '' }, 'type'],
    ['non-base64 envelope', { wire_envelope: 'not base64!' }, 'wire_envelope'],
    ['empty envelope', { wire_envelope: '' }, 'wire_envelope'],
    ['numeric envelope', { wire_envelope: 12 }, 'wire_envelope'],
    ['missing metadata', { metadata: undefined }, 'metadata'],
  ])('rejects %s', (_name, patch, path) => {
    expect(pathsOf({ ...inlineBody(), ...patch })).toContain(path);
  });

  it.each([
    ['no milliseconds', '2026-03-01T12:34:56Z'],
    ['microseconds', '2026-03-01T12:34:56.789123Z'],
    ['an offset', '2026-03-01T12:34:56.789+00:00'],
    ['an impossible date', '2026-02-30T12:34:56.789Z'],
    ['epoch seconds', 1772368496],
  ])('rejects metadata.created_at with %s', (_name, created_at) => {
    const body = inlineBody();
    body['metadata'] = { ...(body['metadata'] as object), created_at };
    expect(pathsOf(body)).toEqual(['metadata.created_at']);
  });

  it('rejects a cleartext payload on message.new, checks documented payloads of other events', () => {
    expect(pathsOf({ ...inlineBody(), payload: { type: 'text', text: 'hi' } })).toEqual(['payload']);
    expect(pathsOf({ ...inlineBody(), type: 'relation.revoked', payload: { user_id: 'u1' } })).toEqual([
      'payload.conversation_id',
    ]);
    const ok = {
      ...inlineBody(),
      type: 'relation.revoked',
      payload: { user_id: 'u1', conversation_id: 'c1' },
    };
    expect(parseWebhookDeliveryBody(ok).type).toBe('relation.revoked');
  });

  it('agrees with WebhookDeliveryBodySchema (property)', () => {
    const envelope = fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 64 }).map((b) => Buffer.from(b).toString('base64')),
      fc.constant(null),
      fc.string({ maxLength: 8 }),
    );
    const maybeRef = fc.option(
      fc.record({
        type: fc.constantFrom('r2', 's3'),
        object_key: fc.constantFrom('k', 'a/b', '../x'),
        size: fc.oneof(fc.nat(), fc.constant(-1)),
        content_type: fc.constantFrom('application/octet-stream', 'bad'),
      }),
      { nil: undefined },
    );
    const body = fc.record(
      {
        type: fc.constantFrom('message.new', 'relation.established', ''),
        version: fc.constantFrom('v1', 'v2'),
        wire_envelope: envelope,
        ref: maybeRef,
        metadata: fc.record({
          conversation_id: fc.constantFrom('c1', ''),
          sender_id: fc.constant('s1'),
          created_at: fc.oneof(isoMillis, fc.constant('2026-01-01T00:00:00Z')),
        }),
      },
      { requiredKeys: ['type', 'version', 'metadata'] },
    );
    fc.assert(
      fc.property(body, (b) => {
        const clean = JSON.parse(JSON.stringify(b)) as unknown;
        const expected = WebhookDeliveryBodySchema.safeParse(clean).success;
        let parsed = true;
        try {
          parseWebhookDeliveryBody(clean);
        } catch (err) {
          expect(err).toBeInstanceOf(ValidationError);
          parsed = false;
        }
        expect(parsed).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });
});
