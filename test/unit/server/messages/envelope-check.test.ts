import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toBase64 } from '../../../../packages/sdk/src/core/encoding.js';
import { generateKeys, seal } from '../../../../packages/sdk/src/crypto/index.js';
import { isServerFailure } from '../../../../packages/dev/src/server/http/failure.js';
import { checkEnvelope } from '../../../../packages/dev/src/server/messages/envelope-check.js';

const user = { id: 'user-1', keys: generateKeys() };
const agent = { id: 'agent-1', keys: generateKeys() };
const members = [
  { id: user.id, currentPublicKey: toBase64(user.keys.encryption.publicKey) },
  { id: agent.id, currentPublicKey: toBase64(agent.keys.encryption.publicKey) },
];
const expectation = { senderId: agent.id, conversationId: 'c-1', members };

const wire = seal(
  { type: 'text', text: 'hi' },
  {
    sender: { id: agent.id, signing: agent.keys.signing },
    recipients: [{ id: user.id, publicKey: user.keys.encryption.publicKey }],
    conversationId: 'c-1',
    messageId: 'm-1',
  },
);

function reasonOf(input: string): string | undefined {
  try {
    checkEnvelope(input, expectation);
    return undefined;
  } catch (err) {
    expect(isServerFailure(err)).toBe(true);
    const f = err as { code: string; params: { reason: string } };
    expect(f.code).toBe('INVALID_ENVELOPE');
    return f.params.reason;
  }
}

describe('checkEnvelope', () => {
  it('accepts a well-formed envelope and returns its header', () => {
    const header = checkEnvelope(wire, expectation);
    expect(header).toMatchObject({ senderId: agent.id, conversationId: 'c-1', messageId: 'm-1' });
  });

  it('an extra wrap to the sender itself is fine; the other member’s current key is required', () => {
    const both = seal(
      { type: 'text', text: 'x' },
      {
        sender: { id: agent.id, signing: agent.keys.signing },
        recipients: [
          { id: agent.id, publicKey: agent.keys.encryption.publicKey },
          { id: user.id, publicKey: user.keys.encryption.publicKey },
        ],
        conversationId: 'c-1',
      },
    );
    expect(reasonOf(both)).toBeUndefined();
  });

  it('property: any string is accepted or refused with INVALID_ENVELOPE, never another error', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.base64String()), (s) => {
        const reason = reasonOf(s);
        expect(reason === undefined || ['not_base64', 'malformed'].includes(reason)).toBe(true);
      }),
    );
  });

  it('property: a truncated or bit-flipped valid envelope never throws anything but INVALID_ENVELOPE', () => {
    const bytes = Buffer.from(wire, 'base64');
    fc.assert(
      fc.property(fc.nat(bytes.length - 1), fc.integer({ min: 0, max: 7 }), fc.boolean(), (at, bit, cut) => {
        const copy = Buffer.from(cut ? bytes.subarray(0, at) : bytes);
        if (!cut) copy[at]! ^= 1 << bit;
        reasonOf(copy.toString('base64'));
      }),
    );
  });
});
