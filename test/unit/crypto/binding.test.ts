import { describe, expect, it } from 'vitest';
import { concatBytes } from '../../../packages/sdk/src/core/encoding.js';
import { parseEnvelope } from '../../../packages/sdk/src/crypto/envelope-format.js';
import { generateKeys } from '../../../packages/sdk/src/crypto/keys.js';
import { open } from '../../../packages/sdk/src/crypto/open.js';
import { sealBytes } from '../../../packages/sdk/src/crypto/seal.js';
import type { SealOptions } from '../../../packages/sdk/src/crypto/seal-options.js';
import { resign } from '../../fixtures/envelope/tamper.js';
import { catchCrypto } from './helpers.js';

// The attacker here is a legitimate sender (holds a signing key the recipient trusts) who
// splices parts of someone else's envelope into one of its own and signs the result.
const sender = generateKeys();
const me = generateKeys();
const base: SealOptions = {
  sender: { id: 'agent-s', signing: sender.signing },
  recipients: [
    { id: 'me', publicKey: me.encryption.publicKey },
    { id: 'peer', publicKey: generateKeys().encryption.publicKey },
  ],
  conversationId: 'conv-a',
  messageId: 'msg-1',
  createdAt: '2025-03-01T10:00:00.000Z',
};
const opts = { recipientId: 'me', keys: me, senderKey: sender.signing.publicKey };
const payload = { type: 'text', text: 'original' };

function splice(target: Uint8Array, donor: Uint8Array, part: 'wraps' | 'content'): Uint8Array {
  const t = parseEnvelope(target);
  const d = parseEnvelope(donor);
  const content = (e: typeof t) => concatBytes(e.commitment ?? new Uint8Array(0), e.nonce, e.ciphertext);
  const wraps = part === 'wraps' ? d.wraps : t.wraps;
  const body = part === 'content' ? content(d) : content(t);
  return resign(concatBytes(t.headerBytes, wraps, body, new Uint8Array(64)), sender.signing);
}

describe('no part of an envelope can be cut and pasted into another', () => {
  const original = sealBytes(payload, base);
  const variants: [string, Partial<SealOptions>][] = [
    ['conversation id', { conversationId: 'conv-b' }],
    ['message id', { messageId: 'msg-2' }],
    ['created_at', { createdAt: '2025-03-01T10:00:00.001Z' }],
    ['sender id', { sender: { id: 'agent-t', signing: sender.signing } }],
    ['event type', { eventType: 'artifact_response' }],
    [
      'recipient list',
      { recipients: [base.recipients[0]!, { id: 'peer-2', publicKey: generateKeys().encryption.publicKey }] },
    ],
  ];

  it.each(variants)('wraps moved into an envelope with a different %s fail to unwrap', (_name, change) => {
    const other = sealBytes({ type: 'text', text: 'other' }, { ...base, ...change });
    expect(catchCrypto(() => open(splice(other, original, 'wraps'), opts)).reason).toBe('unwrap');
  });

  it('content moved into another envelope fails its tag (aead), even with the wraps moved too', () => {
    const other = sealBytes({ type: 'text', text: 'other' }, { ...base, messageId: 'msg-2' });
    expect(catchCrypto(() => open(splice(other, original, 'content'), opts)).reason).toBe('aead');
  });

  it('the splice helper itself keeps an unmodified envelope valid', () => {
    const again = sealBytes(payload, base);
    expect(open(splice(again, again, 'wraps'), opts).payload).toEqual(payload);
  });
});
