/**
 * The Agent's vet step for grant and manifest decisions
 * (packages/sdk/src/agent/decisions.ts), with fakes for the key directory:
 * each refusal reason, and the decisions that pass.
 */
import { describe, expect, it } from 'vitest';
import { createDecisionVetter, type DecisionVetterDeps } from '../../../packages/sdk/src/agent/decisions.js';
import type { AnyAgentEvent } from '../../../packages/sdk/src/agent/events.js';
import { ManualClock } from '../../../packages/sdk/src/core/clock.js';
import type { DecisionStatement } from '../../../packages/sdk/src/core/protocol/decisions.js';
import { generateKeys } from '../../../packages/sdk/src/crypto/index.js';
import { signDecision } from '../../../packages/sdk/src/crypto/decision.js';
import type { OpenedEnvelope } from '../../../packages/sdk/src/crypto/open-options.js';
import type { PeerKeys } from '../../../packages/sdk/src/messaging/key-directory.js';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const user = generateKeys();
const owner = generateKeys();

function peer(id: string, kind: string, signing: Uint8Array | undefined): PeerKeys {
  return { id, kind, encryption: new Uint8Array(32), signing, retired: [] };
}

function vetter(over: Partial<DecisionVetterDeps> = {}) {
  const keys: Record<string, PeerKeys> = {
    'user-1': peer('user-1', 'user', user.signing.publicKey),
    'owner-1': peer('owner-1', 'user', owner.signing.publicKey),
    'agent-1': peer('agent-1', 'agent', generateKeys().signing.publicKey),
  };
  return createDecisionVetter({
    agentId: 'agent-1',
    clock: new ManualClock(NOW),
    keys: (id) => (keys[id] ? Promise.resolve(keys[id]) : Promise.reject(new Error('unknown'))),
    members: () => Promise.resolve(['user-1', 'agent-1']),
    ownerId: () => Promise.resolve('owner-1'),
    asked: () => undefined,
    proposed: () => undefined,
    artifacts: { vetResponse: () => Promise.resolve(undefined) },
    ...over,
  });
}

const opened = {} as OpenedEnvelope;
const event = (type: string, payload: Record<string, unknown>) =>
  ({ type, payload, senderId: 'system', conversationId: 'system', sealed: true }) as unknown as AnyAgentEvent;

const grant = (o: Partial<Record<string, unknown>> = {}): DecisionStatement =>
  ({
    v: 1,
    kind: 'grant.granted',
    agent_id: 'agent-1',
    signer_id: 'user-1',
    decided_at: new Date(NOW).toISOString(),
    grant_id: 'g1',
    conversation_id: 'c1',
    scope: 'profile.read',
    window_seconds: 600,
    ...o,
  }) as DecisionStatement;

const decidedPayload = (signed: unknown, o: Record<string, unknown> = {}) => ({
  grant_id: 'g1',
  scope: 'profile.read',
  user_id: 'user-1',
  agent_id: 'agent-1',
  conversation_id: 'c1',
  decision: 'granted',
  expires_at: new Date(NOW + 600_000).toISOString(),
  signed_decision: signed,
  ...o,
});

describe('grant decisions', () => {
  it("passes the grant user's signed decision", async () => {
    const signed = await signDecision(grant(), user.signing);
    expect(await vetter()(event('grant.decided', decidedPayload(signed)), opened)).toBeUndefined();
  });

  it.each<[string, () => Promise<unknown>, Record<string, unknown>, string]>([
    ['unsigned', () => Promise.resolve(undefined), {}, 'unsigned'],
    [
      'signed by the owner, not the grant user',
      () => signDecision(grant(), owner.signing),
      {},
      'bad_signature',
    ],
    [
      'naming another signer',
      () => signDecision(grant({ signer_id: 'owner-1' }), owner.signing),
      { user_id: 'owner-1' },
      'wrong_signer',
    ],
    [
      'the decision flipped',
      () => signDecision(grant({ kind: 'grant.denied' }), user.signing),
      {},
      'mismatch',
    ],
    [
      'a window ending later than signed',
      () => signDecision(grant(), user.signing),
      { expires_at: new Date(NOW + 3_600_000).toISOString() },
      'mismatch',
    ],
    [
      'decided two days ago',
      () => signDecision(grant({ decided_at: new Date(NOW - 2 * 86_400_000).toISOString() }), user.signing),
      { expires_at: new Date(NOW - 2 * 86_400_000 + 600_000).toISOString() },
      'stale',
    ],
  ])('refuses a grant.decided %s', async (_what, sign, extra, reason) => {
    const refusal = await vetter()(event('grant.decided', decidedPayload(await sign(), extra)), opened);
    expect(refusal).toEqual({ reason, subject: 'g1' });
  });

  it('refuses a granted window longer than this process asked', async () => {
    const signed = await signDecision(grant({ window_seconds: 3_600 }), user.signing);
    const v = vetter({ asked: () => ({ conversationId: 'c1', scope: 'profile.read', windowSeconds: 600 }) });
    const payload = decidedPayload(signed, { expires_at: new Date(NOW + 3_600_000).toISOString() });
    expect(await v(event('grant.decided', payload), opened)).toEqual({ reason: 'mismatch', subject: 'g1' });
  });

  it('refuses a decision in a conversation with no single human member', async () => {
    const signed = await signDecision(grant(), user.signing);
    const v = vetter({ members: () => Promise.resolve(['user-1', 'owner-1', 'agent-1']) });
    expect(await v(event('grant.decided', decidedPayload(signed)), opened)).toEqual({
      reason: 'wrong_signer',
      subject: 'g1',
    });
  });

  it('passes a signed grant.revoked and refuses one whose kind is not a revocation', async () => {
    const payload = (signed: unknown) => ({
      grant_id: 'g1',
      scope: 'profile.read',
      user_id: 'user-1',
      agent_id: 'agent-1',
      conversation_id: 'c1',
      signed_decision: signed,
    });
    const revoked = await signDecision(grant({ kind: 'grant.revoked' }), user.signing);
    expect(await vetter()(event('grant.revoked', payload(revoked)), opened)).toBeUndefined();
    const granted = await signDecision(grant(), user.signing);
    expect(await vetter()(event('grant.revoked', payload(granted)), opened)).toEqual({
      reason: 'mismatch',
      subject: 'g1',
    });
  });

  it('rethrows a transient lookup failure (the event comes again)', async () => {
    const signed = await signDecision(grant(), user.signing);
    const v = vetter({ members: () => Promise.reject(new Error('network down')) });
    await expect(v(event('grant.decided', decidedPayload(signed)), opened)).rejects.toThrow('network down');
  });
});

describe('manifest decisions', () => {
  const statement = (o: Partial<Record<string, unknown>> = {}): DecisionStatement =>
    ({
      v: 1,
      kind: 'manifest.accepted',
      agent_id: 'agent-1',
      signer_id: 'owner-1',
      decided_at: new Date(NOW).toISOString(),
      version: 2,
      manifest_sha256: 'cd'.repeat(32),
      ...o,
    }) as DecisionStatement;
  const payload = (signed: unknown) => ({
    type: 'agent.capability_changed',
    agent_id: 'agent-1',
    version: 2,
    decision: 'accepted',
    signed_decision: signed,
  });

  it("passes the owner's decision, for the manifest this process proposed", async () => {
    const signed = await signDecision(statement(), owner.signing);
    const v = vetter({ proposed: () => 'cd'.repeat(32) });
    expect(await v(event('agent.capability_changed', payload(signed)), opened)).toBeUndefined();
  });

  it('refuses another manifest digest, another signer, an unknown owner', async () => {
    const signed = await signDecision(statement(), owner.signing);
    expect(
      await vetter({ proposed: () => 'ef'.repeat(32) })(
        event('agent.capability_changed', payload(signed)),
        opened,
      ),
    ).toEqual({ reason: 'mismatch', subject: '2' });
    const byUser = await signDecision(statement({ signer_id: 'user-1' }), user.signing);
    expect(await vetter()(event('agent.capability_changed', payload(byUser)), opened)).toEqual({
      reason: 'wrong_signer',
      subject: '2',
    });
    expect(
      await vetter({ ownerId: () => Promise.resolve(undefined) })(
        event('agent.capability_changed', payload(signed)),
        opened,
      ),
    ).toEqual({ reason: 'signer_unknown', subject: '2' });
  });
});
