import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isSystemSealedEventType,
  PEER_SEALED_EVENT_TYPES,
  sealedTypeProblem,
  systemPayloadProblem,
  SYSTEM_SEALED_EVENT_TYPES,
  SYSTEM_SENDER_ID,
} from '../../../../packages/sdk/src/core/protocol/system-events.js';
import { SERVICE_DENIED_REASONS } from '../../../../packages/sdk/src/core/protocol/artifacts.js';
import { SYSTEM_EVENT_TYPES } from '../../../../packages/sdk/src/agent/events.js';
import { SYSTEM_SENDER_ID as SERVER_SYSTEM_SENDER_ID } from '../../../../packages/dev/src/server/agents/system-sender.js';

describe('system-sealed event types: one list', () => {
  it('lists exactly what the service seals with the system sender', () => {
    expect(SYSTEM_SEALED_EVENT_TYPES).toEqual([
      'relation.established',
      'relation.revoked',
      'relation.suspended',
      'relation.restored',
      'agent.capability_changed',
      'delivery.failed',
      'grant.revoked',
      'grant.decided',
      'group.updated',
      'system.group_key_rotated',
    ]);
    expect([...SYSTEM_EVENT_TYPES]).toEqual([...SYSTEM_SEALED_EVENT_TYPES]);
    expect(SERVER_SYSTEM_SENDER_ID).toBe(SYSTEM_SENDER_ID);
    expect(isSystemSealedEventType('delivery.failed')).toBe(true);
    expect(isSystemSealedEventType('message.new')).toBe(false);
    expect(isSystemSealedEventType(undefined)).toBe(false);
  });
});

describe('systemPayloadProblem', () => {
  it('lets the system sender deny an artifact with a service reason only', () => {
    for (const reason of SERVICE_DENIED_REASONS) {
      expect(systemPayloadProblem('artifact_response', { status: 'denied', reason })).toBeUndefined();
    }
    const refusal =
      'the system sender may only deny an artifact with a service reason, never answer it for a human';
    expect(systemPayloadProblem('artifact_response', { status: 'approved' })).toBe(refusal);
    expect(systemPayloadProblem('artifact_response', { status: 'denied', reason: 'user_rejected' })).toBe(
      refusal,
    );
    expect(systemPayloadProblem('artifact_response', { status: 'denied' })).toBe(refusal);
    expect(systemPayloadProblem('relation.revoked', { status: 'approved' })).toBeUndefined();
  });
});

describe('sealedTypeProblem', () => {
  const system = (eventType: string | undefined) => ({ senderId: 'system', eventType });
  const user = (eventType: string | undefined) => ({ senderId: 'user-1', eventType });

  it('accepts a matching type from the right sender, v1.1 and legacy v1.0', () => {
    expect(sealedTypeProblem('message.new', user('message.new'))).toBeUndefined();
    expect(sealedTypeProblem('relation.revoked', system('relation.revoked'))).toBeUndefined();
    expect(sealedTypeProblem('message.new', user(undefined))).toBeUndefined();
    expect(sealedTypeProblem('relation.revoked', system(undefined))).toBeUndefined();
    expect(sealedTypeProblem(undefined, user('message.new'))).toBeUndefined();
    expect(sealedTypeProblem(undefined, user(undefined))).toBeUndefined();
  });

  it('names each refusal', () => {
    expect(sealedTypeProblem('artifact_response', user('message.new'))).toBe(
      'the envelope is signed as message.new, delivered as artifact_response',
    );
    expect(sealedTypeProblem('relation.revoked', user(undefined))).toBe(
      'a relation.revoked event must be signed by the system sender',
    );
    expect(sealedTypeProblem(undefined, user('delivery.failed'))).toBe(
      'a delivery.failed event must be signed by the system sender',
    );
    expect(sealedTypeProblem('message.new', system('message.new'))).toBe(
      'the system sender does not sign message.new events',
    );
    // Peer-only types (#24, item 9): streams, reactions, approvals are never the system sender's.
    for (const type of ['stream.start', 'reaction.update']) {
      expect(sealedTypeProblem(type, system(type))).toBe(`the system sender does not sign ${type} events`);
      expect(sealedTypeProblem(undefined, system(type))).toBe(
        `the system sender does not sign ${type} events`,
      );
      expect(sealedTypeProblem(type, user(type))).toBeUndefined();
    }
    // artifact_response: the type rule lets either sender through; the payload rule limits system to denials.
    expect(sealedTypeProblem('artifact_response', system('artifact_response'))).toBeUndefined();
    // Types the interface does not attribute: either sender.
    expect(sealedTypeProblem('artifact.expired', system('artifact.expired'))).toBeUndefined();
    expect(sealedTypeProblem('artifact.expired', user('artifact.expired'))).toBeUndefined();
  });

  it('for every type and sender: accepted exactly when the types agree, system types come from system and peer types do not', () => {
    const types = fc.constantFrom(...SYSTEM_SEALED_EVENT_TYPES, ...PEER_SEALED_EVENT_TYPES, 'x.y');
    fc.assert(
      fc.property(types, types, fc.boolean(), (delivered, signed, bySystem) => {
        const origin = { senderId: bySystem ? 'system' : 'agent-1', eventType: signed };
        const senderFits = isSystemSealedEventType(signed)
          ? bySystem
          : !(bySystem && (PEER_SEALED_EVENT_TYPES as readonly string[]).includes(signed));
        const fits = delivered === signed && senderFits;
        expect(sealedTypeProblem(delivered, origin) === undefined).toBe(fits);
      }),
      { seed: 17 },
    );
  });
});
