import { createDecipheriv, createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fromBase64, toBase64 } from '../../../packages/sdk/src/core/encoding.js';
import { parseEnvelope } from '../../../packages/sdk/src/crypto/envelope-format.js';
import { open, openAsync } from '../../../packages/sdk/src/crypto/open.js';
import { sealAsync, sealBytes } from '../../../packages/sdk/src/crypto/seal.js';
import type { SealOptions } from '../../../packages/sdk/src/crypto/seal-options.js';
import { hex, unhex, withFixedRandomness } from '../../fixtures/envelope/fixed-randomness.js';
import {
  VectorFileSchema,
  type PositiveVector,
  type VectorFile,
} from '../../fixtures/envelope/vector-types.js';
import { backends, catchCrypto, catchCryptoAsync, loadVectors, node } from './helpers.js';

function load(name: string): VectorFile {
  const url = new URL(`../../fixtures/envelope/${name}`, import.meta.url);
  return VectorFileSchema.parse(JSON.parse(readFileSync(fileURLToPath(url), 'utf8')));
}

const v11 = load('vectors-v1.1.json');
const v10 = loadVectors();
const pair = (k: { private_key: string; public_key: string }) => ({
  privateKey: unhex(k.private_key),
  publicKey: unhex(k.public_key),
});
const randomness = (v: PositiveVector) =>
  [v.randomness.ephemeral_private_key, v.randomness.content_key, v.randomness.content_nonce].map(unhex);

function sealOptions(v: PositiveVector): Omit<SealOptions, 'backend'> {
  return {
    sender: { id: v.sender.id, signing: pair(v.sender.signing) },
    recipients: v.recipients.map((r) => ({ id: r.id, publicKey: unhex(r.encryption.public_key) })),
    conversationId: v.conversation_id,
    messageId: v.message_id,
    createdAt: v.created_at,
  };
}

/** HKDF-Expand (RFC 5869 §2.3, L = 32: one block) with node:crypto's HMAC, independent of the SDK's code. */
const hkdfExpand = (prk: Uint8Array, info: Uint8Array): string =>
  createHmac('sha256', prk)
    .update(Buffer.concat([info, Buffer.of(1)]))
    .digest('hex');

describe('test vectors v1.1', () => {
  it('docs/envelope.md embeds exactly the v1.1 fixture JSON', () => {
    const doc = readFileSync(fileURLToPath(new URL('../../../docs/envelope.md', import.meta.url)), 'utf8');
    const block = /<!-- vectors-v1.1:begin -->\n```json\n([\s\S]*?)```\n<!-- vectors-v1.1:end -->/.exec(
      doc,
    )?.[1];
    const fixture = readFileSync(
      fileURLToPath(new URL('../../fixtures/envelope/vectors-v1.1.json', import.meta.url)),
      'utf8',
    );
    expect(block).toBe(fixture);
    expect(v11.version).toBe('1.1');
    expect(v11.positive.map((v) => v.name)).toEqual(v10.positive.map((v) => v.name));
    expect(v11.negative.map((n) => n.name)).toEqual([...v10.negative.map((n) => n.name), 'commitment']);
  });

  describe.each(v11.positive.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    it('is reproduced byte for byte by seal (node, sync) and sealAsync (every backend)', async () => {
      const sync = sealBytes(v.payload, {
        ...sealOptions(v),
        backend: withFixedRandomness(node, randomness(v)),
      });
      expect(toBase64(sync)).toBe(v.wire_envelope);
      for (const b of backends) {
        const backend = withFixedRandomness(b, randomness(v));
        expect(await sealAsync(v.payload, { ...sealOptions(v), backend })).toBe(v.wire_envelope);
      }
    });

    it('has the v1.1 layout: minor 1, event type after the message id, commitment after the wraps', () => {
      const bytes = fromBase64(v.wire_envelope)!;
      expect(Array.from(bytes.subarray(4, 8))).toEqual([1, 1, 1, 0]);
      const env = parseEnvelope(bytes);
      expect(env.minor).toBe(1);
      expect(env.header.eventType).toBe('message.new');
      expect(v.event_type).toBe('message.new');
      expect(hex(env.headerBytes)).toBe(v.intermediate.header);
      expect(hex(env.commitment!)).toBe(v.intermediate.commitment);
      expect(env.headerBytes.length + env.wraps.length).toBe(
        bytes.length - 64 - 32 - 12 - env.ciphertext.length,
      );
    });

    it('derives the AEAD key and the commitment as specified (checked with node:crypto HMAC and AES-GCM)', () => {
      const i = v.intermediate;
      const h = createHash('sha256').update(unhex(i.header)).digest();
      expect(h.toString('hex')).toBe(i.header_hash);
      const ck = unhex(v.randomness.content_key);
      const info = (label: string) => Buffer.concat([Buffer.from(label, 'ascii'), h]);
      expect(hkdfExpand(ck, info('ams/envelope/v1.1/content'))).toBe(i.aead_key);
      expect(hkdfExpand(ck, info('ams/envelope/v1.1/commitment'))).toBe(i.commitment);
      expect(i.aead_key).not.toBe(i.commitment);
      const sealed = unhex(i.ciphertext);
      const d = createDecipheriv('aes-256-gcm', unhex(i.aead_key!), unhex(v.randomness.content_nonce));
      d.setAAD(h);
      d.setAuthTag(sealed.subarray(sealed.length - 16));
      const plain = Buffer.concat([d.update(sealed.subarray(0, sealed.length - 16)), d.final()]);
      expect(plain.toString('hex')).toBe(i.plaintext);
    });

    it('opens as every recipient on every backend, with version 1.1 and the signed event type', async () => {
      const senderKey = unhex(v.sender.signing.public_key);
      for (const r of v.recipients) {
        const keys = [pair(r.encryption)];
        const got = open(v.wire_envelope, { recipientId: r.id, keys, senderKey, acceptLegacyV10: false });
        expect(got).toMatchObject({ payload: v.payload, version: '1.1', eventType: 'message.new' });
        for (const backend of backends) {
          expect(await openAsync(v.wire_envelope, { recipientId: r.id, keys, senderKey, backend })).toEqual(
            got,
          );
        }
      }
    });
  });

  describe.each(v11.negative.map((v) => [v.name, v] as const))('negative: %s', (_name, v) => {
    it('fails with the expected error on every backend', async () => {
      const options = {
        recipientId: v.open_as.recipient_id,
        keys: pair(v.open_as.encryption),
        senderKey: unhex(v.open_as.sender_signing_public_key),
      };
      const expected = { reason: undefined, ...v.expected };
      const err = catchCrypto(() => open(v.wire_envelope, options));
      expect({ code: err.code, reason: err.reason }).toEqual(expected);
      for (const backend of backends) {
        const a = await catchCryptoAsync(openAsync(v.wire_envelope, { ...options, backend }));
        expect({ code: a.code, reason: a.reason }).toEqual(expected);
      }
    });
  });
});

describe('legacy v1.0 reading', () => {
  const v = v10.positive[0]!;
  const r = v.recipients[0]!;
  const options = {
    recipientId: r.id,
    keys: [pair(r.encryption)],
    senderKey: unhex(v.sender.signing.public_key),
  };

  it('refuses a v1.0 vector by default (#24); opens it, as version 1.0 without an event type, on explicit opt-in', () => {
    expect(catchCrypto(() => open(v.wire_envelope, options)).code).toBe('INVALID_ENVELOPE');
    expect(open(v.wire_envelope, { ...options, acceptLegacyV10: true })).toMatchObject({
      payload: v.payload,
      version: '1.0',
      eventType: undefined,
    });
  });

  it('refuses a v1.0 vector as INVALID_ENVELOPE with acceptLegacyV10: false, before any crypto', async () => {
    const err = catchCrypto(() => open(v.wire_envelope, { ...options, acceptLegacyV10: false }));
    expect({ code: err.code, message: err.message }).toEqual({
      code: 'INVALID_ENVELOPE',
      message: 'Invalid envelope: legacy v1.0 envelopes are not accepted',
    });
    const a = await catchCryptoAsync(openAsync(v.wire_envelope, { ...options, acceptLegacyV10: false }));
    expect(a.code).toBe('INVALID_ENVELOPE');
  });

  it("seals v1.0 on request (version: '1.0') exactly as the v1.0 vector", () => {
    const backend = withFixedRandomness(node, randomness(v));
    const wire = sealBytes(v.payload, { ...sealOptions(v), version: '1.0', backend });
    expect(toBase64(wire)).toBe(v.wire_envelope);
  });
});
