import { describe, expect, expectTypeOf, it } from 'vitest';
import { ARTIFACT_DENIED_REASONS, ValidationError } from '../../../../packages/sdk/src/core/errors/index.js';
import {
  EVENT_TYPES,
  isEventType,
  isWebhookEventType,
  isWsOnlyEventType,
  parseEventPayload,
  UNSPECIFIED_DELIVERY_EVENT_TYPES,
  WEBHOOK_EVENT_TYPES,
  WS_ONLY_EVENT_TYPES,
  type GrantRevokedPayload,
  type OpaqueEventPayload,
  type RelationRevokedPayload,
} from '../../../../packages/sdk/src/core/protocol/index.js';

// Copied from the service interface's Events section.
const SPEC_WEBHOOK = [
  'message.new',
  'relation.established',
  'relation.revoked',
  'relation.suspended',
  'relation.restored',
  'artifact_response',
  'agent.capability_changed',
];
const SPEC_WS_ONLY = [
  'agent.governance',
  'reaction.update',
  'group.updated',
  'artifact.expired',
  'session.invalidated',
  'auth.expiring',
  'system.group_key_rotated',
];

describe('event type names', () => {
  it('match the spec lists', () => {
    expect([...WEBHOOK_EVENT_TYPES]).toEqual(SPEC_WEBHOOK);
    expect([...WS_ONLY_EVENT_TYPES]).toEqual(SPEC_WS_ONLY);
    expect([...UNSPECIFIED_DELIVERY_EVENT_TYPES]).toEqual(['grant.revoked']);
    expect(new Set(EVENT_TYPES).size).toBe(15);
  });

  it('classify names', () => {
    for (const t of SPEC_WEBHOOK) {
      expect(isWebhookEventType(t)).toBe(true);
      expect(isWsOnlyEventType(t)).toBe(false);
    }
    for (const t of SPEC_WS_ONLY) {
      expect(isWsOnlyEventType(t)).toBe(true);
      expect(isWebhookEventType(t)).toBe(false);
    }
    expect(isEventType('grant.revoked')).toBe(true);
    expect(isWebhookEventType('grant.revoked')).toBe(false);
    expect(isWsOnlyEventType('grant.revoked')).toBe(false);
    for (const v of ['toString', 'MESSAGE.NEW', '', undefined, 1]) expect(isEventType(v)).toBe(false);
  });
});

describe('parseEventPayload', () => {
  it('relation.revoked carries user_id and conversation_id', () => {
    const p = parseEventPayload('relation.revoked', { user_id: 'u1', conversation_id: 'c1', extra: true });
    expectTypeOf(p).toEqualTypeOf<RelationRevokedPayload>();
    expect(p).toEqual({ user_id: 'u1', conversation_id: 'c1', extra: true });
    expect(() => parseEventPayload('relation.revoked', { user_id: 'u1' })).toThrow(ValidationError);
  });

  it('grant.revoked carries grant_id, scope (string or list) and user_id', () => {
    const p = parseEventPayload('grant.revoked', { grant_id: 'g1', scope: 'calendar.read', user_id: 'u1' });
    expectTypeOf(p).toEqualTypeOf<GrantRevokedPayload>();
    expect(
      parseEventPayload('grant.revoked', { grant_id: 'g1', scope: ['a', 'b'], user_id: 'u1' }).scope,
    ).toEqual(['a', 'b']);
    for (const bad of [
      { grant_id: 'g1', user_id: 'u1' },
      { grant_id: 'g1', scope: 3, user_id: 'u1' },
      { scope: 'x', user_id: 'u1' },
    ]) {
      expect(() => parseEventPayload('grant.revoked', bad)).toThrow(ValidationError);
    }
  });

  it('artifact_response needs one of the six reasons when denied', () => {
    for (const reason of ARTIFACT_DENIED_REASONS) {
      expect(parseEventPayload('artifact_response', { status: 'denied', reason }).reason).toBe(reason);
    }
    expect(ARTIFACT_DENIED_REASONS).toEqual([
      'user_rejected',
      'user_timeout',
      'tool_not_supported_in_group',
      'permission_revoked',
      'tool_timeout',
      'tool_not_implemented',
    ]);
    try {
      parseEventPayload('artifact_response', { status: 'denied', reason: 'because' });
      expect.unreachable();
    } catch (err) {
      expect((err as ValidationError).issues.map((i) => i.path)).toEqual([['reason']]);
    }
    expect(() => parseEventPayload('artifact_response', { status: 'denied' })).toThrow(ValidationError);
    expect(parseEventPayload('artifact_response', { status: 'accepted', result: { ok: 1 } }).status).toBe(
      'accepted',
    );
    expect(() => parseEventPayload('artifact_response', {})).toThrow(ValidationError);
  });

  it('accepts any object for events without documented payload facts', () => {
    const p = parseEventPayload('agent.governance', { level: 'L1' });
    expectTypeOf(p).toEqualTypeOf<OpaqueEventPayload>();
    expect(p).toEqual({ level: 'L1' });
    expect(parseEventPayload('something.new', {})).toEqual({});
    expect(parseEventPayload('toString', { a: 1 })).toEqual({ a: 1 });
    expect(() => parseEventPayload('agent.governance', 'text')).toThrow(ValidationError);
    expect(() => parseEventPayload('agent.governance', null)).toThrow(ValidationError);
  });
});
