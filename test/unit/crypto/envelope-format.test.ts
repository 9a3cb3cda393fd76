import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { concatBytes, utf8 } from '../../../packages/sdk/src/core/encoding.js';
import {
  encodeHeader,
  isCreatedAt,
  parseEnvelope,
  SIZES,
  type EnvelopeHeader,
} from '../../../packages/sdk/src/crypto/envelope-format.js';
import { catchCrypto } from './helpers.js';

const id = fc.string({ minLength: 1, maxLength: 60 }).filter((s) => utf8(s).length <= 255);
const bytes = (n: number) => fc.uint8Array({ minLength: n, maxLength: n });
const header: fc.Arbitrary<EnvelopeHeader> = fc.record({
  senderId: id,
  conversationId: id,
  messageId: id,
  createdAt: fc
    .date({
      min: new Date('0000-01-01T00:00:00.000Z'),
      max: new Date('9999-12-31T23:59:59.999Z'),
      noInvalidDate: true,
    })
    .map((d) => d.toISOString()),
  ephemeralPublicKey: bytes(32),
  recipients: fc.array(fc.record({ id, fingerprint: bytes(SIZES.fingerprint) }), {
    minLength: 1,
    maxLength: 6,
  }),
});

describe('envelope layout', () => {
  it('parses back every field and part of any encoded envelope', () => {
    fc.assert(
      fc.property(header, fc.uint8Array({ minLength: 16, maxLength: 100 }), bytes(64), (h, ct, sig) => {
        const head = encodeHeader(h);
        const wraps = new Uint8Array(h.recipients.length * SIZES.wrap).fill(7);
        const nonce = new Uint8Array(SIZES.nonce).fill(9);
        const env = parseEnvelope(concatBytes(head, wraps, nonce, ct, sig));
        expect(env.header).toEqual(h);
        expect(env.headerBytes).toEqual(head);
        expect(env.wraps).toEqual(wraps);
        expect(env.nonce).toEqual(nonce);
        expect(env.ciphertext).toEqual(ct);
        expect(env.signature).toEqual(sig);
        expect(env.body).toEqual(concatBytes(head, wraps, nonce, ct));
      }),
      { numRuns: 200 },
    );
  });

  it('throws only INVALID_ENVELOPE on random bytes, with or without a valid prefix', () => {
    const prefix = Uint8Array.of(0x41, 0x4d, 0x53, 0x45, 1, 0, 1, 0);
    fc.assert(
      fc.property(fc.boolean(), fc.uint8Array({ maxLength: 400 }), (withPrefix, tail) => {
        const input = withPrefix ? concatBytes(prefix, tail) : tail;
        try {
          parseEnvelope(input);
        } catch {
          expect(catchCrypto(() => parseEnvelope(input)).code).toBe('INVALID_ENVELOPE');
        }
      }),
      { numRuns: 500 },
    );
  });

  it('rejects a zero recipient count and empty ids', () => {
    const h = encodeHeader({
      senderId: 's',
      conversationId: 'c',
      messageId: 'm',
      createdAt: '2025-01-01T00:00:00.000Z',
      ephemeralPublicKey: new Uint8Array(32),
      recipients: [{ id: 'r', fingerprint: new Uint8Array(8) }],
    });
    const rest = new Uint8Array(SIZES.wrap + SIZES.nonce + SIZES.tag + SIZES.signature);
    const countAt = 8 + 2 * 3 + 24 + 32;
    const zero = concatBytes(h, rest);
    zero[countAt + 1] = 0;
    expect(catchCrypto(() => parseEnvelope(zero)).message).toContain('recipient count');
    const emptyId = concatBytes(h, rest);
    emptyId[8] = 0;
    expect(catchCrypto(() => parseEnvelope(emptyId)).code).toBe('INVALID_ENVELOPE');
  });
});

describe('created_at', () => {
  it('accepts exactly the 24-character ISO 8601 UTC form of real instants', () => {
    expect(isCreatedAt('2024-02-29T23:59:59.999Z')).toBe(true);
    for (const bad of [
      '2025-02-29T00:00:00.000Z',
      '2025-01-01T24:00:00.000Z',
      '2025-01-01T00:00:00Z',
      '2025-01-01T00:00:00.000+00:00',
      '2025-01-01 00:00:00.000Z',
      '+012025-01-01T00:00:00.000Z',
    ]) {
      expect(isCreatedAt(bad)).toBe(false);
    }
    fc.assert(
      fc.property(
        fc.date({ min: new Date(0), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }),
        (d) => {
          expect(isCreatedAt(d.toISOString())).toBe(true);
        },
      ),
    );
  });
});
