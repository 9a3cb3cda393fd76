import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toBase64 } from '../../../packages/sdk/src/core/encoding.js';
import {
  discloseContentKey,
  generateKeys,
  openDisclosed,
  seal,
} from '../../../packages/sdk/src/crypto/index.js';
import { attributeForward } from '../../../packages/sdk/src/messaging/forward-attribution.js';
import { forwardedPayload } from '../../../packages/sdk/src/messaging/relay-actions.js';

const alice = generateKeys();
const bob = generateKeys();
const mallory = generateKeys();
const keys = new Map([
  ['alice', alice.signing.publicKey],
  ['bob', bob.signing.publicKey],
  ['mallory', mallory.signing.publicKey],
]);
const lookup = (id: string) => Promise.resolve(keys.get(id));

function original(payload: Record<string, unknown>, version: '1.0' | '1.1' = '1.1') {
  const messageId = crypto.randomUUID();
  const createdAt = '2026-11-27T12:00:00.000Z';
  const wire = seal(payload, {
    sender: { id: 'alice', signing: alice.signing },
    recipients: [{ id: 'bob', publicKey: bob.encryption.publicKey }],
    conversationId: 'c1',
    messageId,
    createdAt,
    version,
  });
  return {
    wire,
    messageId,
    createdAt,
    source: { conversationId: 'c1', messageId, senderId: 'alice', createdAt, payload },
  };
}

describe('forward proofs (crypto)', () => {
  it('a recipient discloses the content key; anyone opens the original with it and the sender key', async () => {
    const o = original({ type: 'text', text: 'hi' });
    const key = await discloseContentKey(o.wire, { recipientId: 'bob', keys: [bob.encryption] });
    const opened = await openDisclosed(o.wire, key, { senderKey: alice.signing.publicKey });
    expect(opened).toEqual({
      payload: { type: 'text', text: 'hi' },
      senderId: 'alice',
      conversationId: 'c1',
      messageId: o.messageId,
      createdAt: o.createdAt,
      eventType: 'message.new',
    });
    await expect(openDisclosed(o.wire, key, { senderKey: mallory.signing.publicKey })).rejects.toMatchObject({
      code: 'DECRYPT_FAILURE',
      reason: 'signature',
    });
    await expect(openDisclosed(o.wire, new Uint8Array(32), { senderKey: lookup })).rejects.toMatchObject({
      reason: 'aead',
    });
    await expect(
      discloseContentKey(o.wire, { recipientId: 'mallory', keys: [mallory.encryption] }),
    ).rejects.toMatchObject({ reason: 'no_wrap' });
  });

  it('a v1.0 original proves nothing (no key commitment): INVALID_ENVELOPE', async () => {
    const o = original({ type: 'text', text: 'old' }, '1.0');
    await expect(
      discloseContentKey(o.wire, { recipientId: 'bob', keys: [bob.encryption] }),
    ).rejects.toMatchObject({ code: 'INVALID_ENVELOPE' });
  });
});

describe('attributeForward', () => {
  it('verifies a copy with a proof, and names the reason of every other copy', async () => {
    const o = original({ type: 'text', text: 'hi' });
    const key = await discloseContentKey(o.wire, { recipientId: 'bob', keys: [bob.encryption] });
    const proof = { wire_envelope: o.wire, content_key: toBase64(key) };
    const good = forwardedPayload(o.source, proof);
    expect(await attributeForward(good, 'bob', lookup)).toMatchObject({
      verified: true,
      senderId: 'alice',
      forwardedBy: 'bob',
      payload: { type: 'text', text: 'hi' },
    });
    expect(await attributeForward({ type: 'text', text: 'x' }, 'bob', lookup)).toBeUndefined();
    const noProof = forwardedPayload(o.source);
    expect(await attributeForward(noProof, 'bob', lookup)).toMatchObject({
      verified: false,
      reason: 'no_proof',
    });
    // The forwarder's own message: its own signature on the copy is the original sender's.
    expect(await attributeForward(noProof, 'alice', lookup)).toMatchObject({ verified: true });
    const lied = { ...good, payload: { type: 'text', text: 'bye' } };
    expect(await attributeForward(lied, 'bob', lookup)).toMatchObject({
      verified: false,
      reason: 'mismatch',
    });
    const otherSender = { ...good, original: { ...good.original, sender_id: 'mallory' } };
    expect(await attributeForward(otherSender, 'bob', lookup)).toMatchObject({ reason: 'mismatch' });
    expect(await attributeForward(good, 'bob', () => Promise.resolve(undefined))).toMatchObject({
      verified: false,
      reason: 'unknown_sender',
    });
    expect(await attributeForward(good, 'bob', () => Promise.reject(new Error('403')))).toMatchObject({
      reason: 'unknown_sender',
    });
    expect(
      await attributeForward(good, 'bob', () => Promise.resolve(mallory.signing.publicKey)),
    ).toMatchObject({ reason: 'signature' });
    const badKey = { ...good, proof: { ...proof, content_key: toBase64(new Uint8Array(32)) } };
    expect(await attributeForward(badKey, 'bob', lookup)).toMatchObject({ reason: 'invalid_proof' });
    expect(await attributeForward({ type: 'forwarded', original: 7 }, 'bob', lookup)).toMatchObject({
      verified: false,
      reason: 'malformed',
    });
  });

  it('never throws and never verifies a payload it cannot prove, whatever the forwarder sends', async () => {
    const o = original({ type: 'text', text: 'hi' });
    const key = await discloseContentKey(o.wire, { recipientId: 'bob', keys: [bob.encryption] });
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          type: fc.constant('forwarded'),
          original: fc.oneof(fc.anything(), fc.constant(forwardedPayload(o.source).original)),
          payload: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.anything()),
          proof: fc.oneof(
            fc.constant(undefined),
            fc.anything(),
            fc.record({ wire_envelope: fc.constant(o.wire), content_key: fc.base64String() }),
            fc.constant({ wire_envelope: o.wire, content_key: toBase64(key) }),
          ),
        }),
        async (payload) => {
          const a = await attributeForward(payload as Record<string, unknown>, 'bob', lookup);
          expect(a).toBeDefined();
          if (a!.verified) {
            // Only the genuine original, exactly.
            expect(a!.senderId).toBe('alice');
            expect(a!.payload).toEqual({ type: 'text', text: 'hi' });
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
