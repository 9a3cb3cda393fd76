import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { x25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { toBase64, utf8 } from '../../../packages/sdk/src/core/encoding.js';
import { open, openAsync } from '../../../packages/sdk/src/crypto/open.js';
import { sealAsync, sealBytes } from '../../../packages/sdk/src/crypto/seal.js';
import type { SealOptions } from '../../../packages/sdk/src/crypto/seal-options.js';
import { hex, unhex, withFixedRandomness } from '../../fixtures/envelope/fixed-randomness.js';
import type { PositiveVector } from '../../fixtures/envelope/vector-types.js';
import { backends, catchCrypto, catchCryptoAsync, loadVectors, node } from './helpers.js';
import { refFingerprint, refKek, refOpen, refSeal } from './reference-impl.js';

const vectors = loadVectors();
const pair = (k: { private_key: string; public_key: string }) => ({
  privateKey: unhex(k.private_key),
  publicKey: unhex(k.public_key),
});

function sealOptions(v: PositiveVector): Omit<SealOptions, 'backend'> {
  return {
    sender: { id: v.sender.id, signing: pair(v.sender.signing) },
    recipients: v.recipients.map((r) => ({ id: r.id, publicKey: unhex(r.encryption.public_key) })),
    conversationId: v.conversation_id,
    messageId: v.message_id,
    createdAt: v.created_at,
    version: '1.0',
  };
}

const randomness = (v: PositiveVector) =>
  [v.randomness.ephemeral_private_key, v.randomness.content_key, v.randomness.content_nonce].map(unhex);

describe('test vectors', () => {
  it('docs/envelope.md embeds exactly the fixture JSON', () => {
    const doc = readFileSync(fileURLToPath(new URL('../../../docs/envelope.md', import.meta.url)), 'utf8');
    const block = /<!-- vectors:begin -->\n```json\n([\s\S]*?)```\n<!-- vectors:end -->/.exec(doc)?.[1];
    expect(block).toBeDefined();
    const fixture = readFileSync(
      fileURLToPath(new URL('../../fixtures/envelope/vectors.json', import.meta.url)),
      'utf8',
    );
    expect(block).toBe(fixture);
    expect(JSON.parse(block!)).toEqual(vectors);
    expect(vectors.positive.length).toBeGreaterThanOrEqual(3);
    expect(vectors.negative.map((n) => n.expected.reason ?? n.expected.code)).toEqual(
      expect.arrayContaining(['INVALID_ENVELOPE', 'signature', 'no_wrap', 'unwrap', 'aead', 'parse']),
    );
  });

  describe.each(vectors.positive.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    it('is reproduced byte for byte by sync seal (node)', () => {
      const backend = withFixedRandomness(node, randomness(v));
      expect(toBase64(sealBytes(v.payload, { ...sealOptions(v), backend }))).toBe(v.wire_envelope);
    });

    it.each(backends.map((b) => [b.name, b] as const))(
      'is reproduced byte for byte by sealAsync (%s)',
      async (_n, b) => {
        const backend = withFixedRandomness(b, randomness(v));
        expect(await sealAsync(v.payload, { ...sealOptions(v), backend })).toBe(v.wire_envelope);
      },
    );

    it('is reproduced, with every intermediate, by the independent reference implementation', () => {
      const [eph, ck, nonce] = randomness(v) as [Uint8Array, Uint8Array, Uint8Array];
      const i = v.intermediate;
      expect(hex(utf8(JSON.stringify(v.payload)))).toBe(i.plaintext);
      const ephPub = unhex(i.ephemeral_public_key);
      v.recipients.forEach((r, idx) => {
        expect(hex(refFingerprint(unhex(r.encryption.public_key)))).toBe(r.fingerprint);
        const ss = x25519.getSharedSecret(eph, unhex(r.encryption.public_key));
        expect(hex(ss)).toBe(i.wraps[idx]!.shared_secret);
        const kek = refKek(ss, ephPub, unhex(r.encryption.public_key), unhex(i.header_hash), idx);
        expect(hex(kek)).toBe(i.wraps[idx]!.kek);
      });
      const wire = refSeal({
        senderId: v.sender.id,
        signingPrivate: unhex(v.sender.signing.private_key),
        conversationId: v.conversation_id,
        messageId: v.message_id,
        createdAt: v.created_at,
        recipients: v.recipients.map((r) => ({ id: r.id, publicKey: unhex(r.encryption.public_key) })),
        plaintext: unhex(i.plaintext),
        ephemeralPrivate: eph,
        contentKey: ck,
        nonce,
      });
      expect(toBase64(wire)).toBe(v.wire_envelope);
      expect(hex(wire.subarray(0, unhex(i.header).length))).toBe(i.header);
      expect(hex(wire.subarray(wire.length - 64))).toBe(i.signature);
    });

    it('opens as every recipient, on every backend and in the reference implementation', async () => {
      const senderKey = unhex(v.sender.signing.public_key);
      for (const r of v.recipients) {
        const keys = [pair(r.encryption)];
        // These are the v1.0 vectors: reading them is an explicit opt-in since #24.
        const got = open(v.wire_envelope, { recipientId: r.id, keys, senderKey, acceptLegacyV10: true });
        expect(got.payload).toEqual(v.payload);
        expect(got).toMatchObject({ senderId: v.sender.id, conversationId: v.conversation_id });
        expect(got).toMatchObject({
          messageId: v.message_id,
          createdAt: v.created_at,
          keyFingerprint: r.fingerprint,
        });
        expect(got.recipients).toEqual(v.recipients.map((x) => ({ id: x.id, fingerprint: x.fingerprint })));
        for (const backend of backends) {
          const a = await openAsync(v.wire_envelope, {
            recipientId: r.id,
            keys,
            senderKey,
            backend,
            acceptLegacyV10: true,
          });
          expect(a).toEqual(got);
        }
        expect(refOpen(v.wire_envelope, r.id, keys, senderKey)).toEqual({ payload: v.payload });
      }
    });
  });

  describe.each(vectors.negative.map((v) => [v.name, v] as const))('negative: %s', (_name, v) => {
    const options = {
      recipientId: v.open_as.recipient_id,
      keys: pair(v.open_as.encryption),
      senderKey: unhex(v.open_as.sender_signing_public_key),
      acceptLegacyV10: true,
    };
    const expected = v.expected.reason === undefined ? { code: v.expected.code } : v.expected;

    it('fails with the expected error on every backend and in the reference implementation', async () => {
      const err = catchCrypto(() => open(v.wire_envelope, options));
      expect({ code: err.code, reason: err.reason }).toEqual({ reason: undefined, ...expected });
      for (const backend of backends) {
        const a = await catchCryptoAsync(openAsync(v.wire_envelope, { ...options, backend }));
        expect({ code: a.code, reason: a.reason }).toEqual({ reason: undefined, ...expected });
      }
      expect(refOpen(v.wire_envelope, options.recipientId, [options.keys], options.senderKey)).toEqual(
        expected,
      );
    });
  });
});
