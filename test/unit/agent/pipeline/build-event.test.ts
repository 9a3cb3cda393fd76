import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  eventFromCleartext,
  eventFromEnvelope,
  type BuildContext,
} from '../../../../packages/sdk/src/agent/pipeline/build-event.js';
import { checkObject } from '../../../../packages/sdk/src/agent/pipeline/open-envelope.js';
import type { InboundEvent } from '../../../../packages/sdk/src/agent/pipeline/types.js';
import { isTransportError, isValidationError } from '../../../../packages/sdk/src/core/errors/index.js';
import type { OpenedEnvelope } from '../../../../packages/sdk/src/crypto/index.js';

const ctx: BuildContext = {
  transport: 'webhook',
  deliveryId: 'd1',
  nowMs: Date.parse('2026-03-01T12:00:00.000Z'),
  send: () => Promise.reject(new Error('not used')),
};

function inbound(type: string, payload?: Record<string, unknown>): InboundEvent {
  return { type, deliveryId: 'd1', wireEnvelope: undefined, ref: undefined, metadata: undefined, payload };
}

function opened(payload: Record<string, unknown>, senderId = 'user-1'): OpenedEnvelope {
  return {
    payload,
    senderId,
    conversationId: 'c1',
    messageId: 'm1',
    createdAt: '2026-03-01T12:00:00.000Z',
    recipients: [],
    keyFingerprint: '0000000000000000',
    version: '1.0',
    eventType: undefined,
  };
}

function outcome(fn: () => unknown): 'ok' | 'validation' {
  try {
    fn();
    return 'ok';
  } catch (err) {
    expect(isValidationError(err)).toBe(true);
    return 'validation';
  }
}

describe('typed events from opened envelopes and cleartext frames', () => {
  it('cleartext events without metadata default to the system sender and now', () => {
    const e = eventFromCleartext(inbound('auth.expiring', { expires_in_seconds: 60 }), ctx);
    expect(e).toMatchObject({
      type: 'auth.expiring',
      conversationId: 'system',
      senderId: 'system',
      createdAt: '2026-03-01T12:00:00.000Z',
      sealed: false,
      messageId: undefined,
      payload: { expires_in_seconds: 60 },
    });
  });

  it('reaction.update and artifact.expired payloads are checked and typed (docs/artifacts.md)', () => {
    const reaction = { type: 'reaction', message_id: 'm1', emoji: '👍', action: 'add' };
    expect(eventFromEnvelope(inbound('reaction.update'), opened(reaction), ctx)).toMatchObject({
      targetMessageId: 'm1',
      emoji: '👍',
      action: 'add',
    });
    expect(outcome(() => eventFromCleartext(inbound('reaction.update', { emoji: '👍' }), ctx))).toBe(
      'validation',
    );
    const expired = { artifact_id: 'a1', conversation_id: 'c1', revision: 2 };
    expect(eventFromEnvelope(inbound('artifact.expired'), opened(expired), ctx)).toMatchObject({
      artifactId: 'a1',
      revision: 2,
    });
    expect(outcome(() => eventFromEnvelope(inbound('artifact.expired'), opened({ revision: 2 }), ctx))).toBe(
      'validation',
    );
  });

  it('grant.revoked payload facts are checked', () => {
    expect(
      outcome(() =>
        eventFromEnvelope(inbound('grant.revoked'), opened({ grant_id: 'g', scope: 's', user_id: 'u' }), ctx),
      ),
    ).toBe('ok');
    expect(outcome(() => eventFromEnvelope(inbound('grant.revoked'), opened({ grant_id: 'g' }), ctx))).toBe(
      'validation',
    );
  });

  it('property: a message payload is accepted exactly when it is a message payload', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (payload) => {
        const result = outcome(() => eventFromEnvelope(inbound('message.new'), opened(payload), ctx));
        const type = payload['type'];
        const valid =
          typeof type === 'string' &&
          type.length > 0 &&
          type.length <= 100 &&
          (type !== 'text' || typeof payload['text'] === 'string');
        expect(result).toBe(valid ? 'ok' : 'validation');
      }),
    );
  });

  it('property: any payload of any type either builds an event or throws a ValidationError only', () => {
    const types = fc.constantFrom(
      'relation.established',
      'relation.revoked',
      'artifact_response',
      'agent.governance',
      'agent.capability_changed',
      'grant.revoked',
      'x.unknown',
    );
    fc.assert(
      fc.property(
        types,
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.boolean(),
        (type, payload, system) => {
          outcome(() => eventFromEnvelope(inbound(type), opened(payload, system ? 'system' : 'u'), ctx));
          outcome(() => eventFromCleartext(inbound(type, payload), ctx));
        },
      ),
    );
  });
});

describe('checkObject', () => {
  const ref = { object_key: 'k', size: 3, content_type: 'application/octet-stream' };
  it('accepts the exact size and media type (parameters and case ignored)', () => {
    const bytes = new Uint8Array([1, 2, 3]);
    expect(checkObject({ bytes, size: 3, contentType: 'Application/Octet-Stream; x=1' }, ref)).toBe(bytes);
  });

  it('property: anything but the exact size and media type is a TRANSPORT_BAD_RESPONSE', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 8 }), fc.option(fc.string()), (bytes, contentType) => {
        const object = { bytes, size: bytes.length, contentType: contentType ?? undefined };
        const fits =
          bytes.length === 3 &&
          contentType?.split(';')[0]?.trim().toLowerCase() === 'application/octet-stream';
        try {
          checkObject(object, ref);
          expect(fits).toBe(true);
        } catch (err) {
          expect(fits).toBe(false);
          expect(isTransportError(err) && err.code === 'TRANSPORT_BAD_RESPONSE').toBe(true);
        }
      }),
    );
  });
});
