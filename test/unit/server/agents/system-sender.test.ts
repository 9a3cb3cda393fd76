import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../packages/sdk/src/core/clock.js';
import { toBase64 } from '../../../../packages/sdk/src/core/encoding.js';
import { generateKeys, open } from '../../../../packages/sdk/src/crypto/index.js';
import { createSystemSender } from '../../../../packages/dev/src/server/agents/system-sender.js';

describe('the system sender', () => {
  it('seals v1.1 envelopes that bind the event type it delivers them as', () => {
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00.000Z'));
    const keys = generateKeys();
    const agent = generateKeys();
    const sender = createSystemSender(clock, keys);
    const event = sender.event(
      'relation.revoked',
      { type: 'relation.revoked', user_id: 'u1' },
      { id: 'agent-1', publicKeys: [toBase64(agent.encryption.publicKey)] },
      'conv-1',
    )!;
    expect(event.type).toBe('relation.revoked');
    const opened = open(event.wireEnvelope, {
      recipientId: 'agent-1',
      keys: agent,
      senderKey: keys.signing.publicKey,
      acceptLegacyV10: false,
    });
    expect(opened).toMatchObject({
      version: '1.1',
      eventType: 'relation.revoked',
      senderId: 'system',
      conversationId: 'conv-1',
      createdAt: '2026-03-01T12:00:00.000Z',
      payload: { type: 'relation.revoked', user_id: 'u1' },
    });
  });
});
