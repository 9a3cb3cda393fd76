/**
 * Issue 16 (1 MB envelopes): the fast synchronous paths (plaintext encrypted in
 * place in the envelope, base64 decoded into the shared scratch, ASCII decoded
 * as Latin-1) and the raw-bytes API (`sealPayloadBytes` / `openPayloadBytes`)
 * produce exactly the envelopes and payloads of the general path (`sealAsync`,
 * which assembles the envelope from a separate ciphertext) on every backend.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toBase64 } from '../../../packages/sdk/src/core/encoding.js';
import { ValidationError } from '../../../packages/sdk/src/core/errors/index.js';
import {
  decodeBase64Strict,
  ENVELOPE_REF_MAX_BYTES,
} from '../../../packages/sdk/src/crypto/envelope-wire.js';
import { open, openAsync, openPayloadBytes } from '../../../packages/sdk/src/crypto/open.js';
import { checkPayloadJsonBytes } from '../../../packages/sdk/src/crypto/payload.js';
import {
  borrowScratch,
  releaseScratch,
  SCRATCH_MAX_BYTES,
} from '../../../packages/sdk/src/crypto/scratch.js';
import {
  seal,
  sealAsync,
  sealBytes,
  sealBytesAsync,
  sealPayloadBytes,
  sealPlaintext,
} from '../../../packages/sdk/src/crypto/seal.js';
import type { CryptoBackend } from '../../../packages/sdk/src/crypto/backend/types.js';
import type { SealAsyncOptions, SealOptions } from '../../../packages/sdk/src/crypto/seal-options.js';
import { unhex, withFixedRandomness } from '../../fixtures/envelope/fixed-randomness.js';
import { VectorFileSchema, type PositiveVector } from '../../fixtures/envelope/vector-types.js';
import { backends, catchCrypto, node, parties, sealOptionsFor } from './helpers.js';

const p = parties(2);
const base = {
  ...sealOptionsFor(p),
  maxEnvelopeBytes: ENVELOPE_REF_MAX_BYTES,
  createdAt: '2026-11-24T12:00:00.000Z',
};
/** Compares long strings or byte arrays without printing megabytes on failure. */
const same = (a: string | Uint8Array | undefined, b: string | Uint8Array | undefined): boolean =>
  a !== undefined && b !== undefined && Buffer.from(a as Uint8Array).equals(Buffer.from(b as Uint8Array));
const openAs = (i: number) => ({
  recipientId: `recipient-${i}`,
  keys: p.recipients[i]!.encryption,
  senderKey: p.sender.signing.publicKey,
  maxEnvelopeBytes: ENVELOPE_REF_MAX_BYTES,
});
const utf8 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'utf8'));
const fixed = () => [32, 32, 12, 16].map((n, i) => new Uint8Array(n).fill(i + 1));
/** The same seal options with the same fixed randomness on `backend` each time it is called. */
const fixedOptions = (): SealOptions => ({ ...base, backend: withFixedRandomness(node, fixed()) });
/** As `fixedOptions`, on any backend (for `sealAsync`). */
const fixedAsync = (backend: CryptoBackend): SealAsyncOptions => ({
  ...base,
  backend: withFixedRandomness(backend, fixed()),
});

const MB = 1_048_576;
const asciiMb = { type: 'text', text: 'x'.repeat(MB - 25) };
const mixedMb = { type: 'text', text: 'é€😀 a"\\\n'.repeat(60_000), n: [1, 2.5, null, true] };

function loadVectors(name: string): PositiveVector[] {
  const url = new URL(`../../fixtures/envelope/${name}`, import.meta.url);
  return VectorFileSchema.parse(JSON.parse(readFileSync(fileURLToPath(url), 'utf8'))).positive;
}

describe('fast paths reproduce the test vectors', () => {
  const vectors = [...loadVectors('vectors.json'), ...loadVectors('vectors-v1.1.json')];
  it.each(vectors.map((v) => [`${v.name} (${v.event_type === undefined ? 'v1.0' : 'v1.1'})`, v] as const))(
    '%s: seal, sealPayloadBytes and openPayloadBytes',
    (_name, v) => {
      const options = (): SealOptions => ({
        sender: {
          id: v.sender.id,
          signing: {
            privateKey: unhex(v.sender.signing.private_key),
            publicKey: unhex(v.sender.signing.public_key),
          },
        },
        recipients: v.recipients.map((r) => ({ id: r.id, publicKey: unhex(r.encryption.public_key) })),
        conversationId: v.conversation_id,
        messageId: v.message_id,
        createdAt: v.created_at,
        ...(v.event_type === undefined ? { version: '1.0' as const } : { eventType: v.event_type }),
        backend: withFixedRandomness(
          node,
          [v.randomness.ephemeral_private_key, v.randomness.content_key, v.randomness.content_nonce].map(
            unhex,
          ),
        ),
      });
      expect(seal(v.payload, options())).toBe(v.wire_envelope);
      const json = utf8(JSON.stringify(v.payload));
      expect(toBase64(sealPayloadBytes(json, options()))).toBe(v.wire_envelope);
    },
  );
});

describe('1 MB envelopes', () => {
  it.each([
    ['ASCII', asciiMb],
    ['non-ASCII, escapes', mixedMb],
  ] as const)(
    '%s: seal (scratch) = sealBytes = sealPayloadBytes = sealAsync on every backend',
    async (_n, payload) => {
      const wire = seal(payload, fixedOptions());
      expect(wire.length).toBeGreaterThan(MB);
      expect(same(toBase64(sealBytes(payload, fixedOptions())), wire)).toBe(true);
      expect(same(toBase64(sealPayloadBytes(utf8(JSON.stringify(payload)), fixedOptions())), wire)).toBe(
        true,
      );
      for (const b of backends) {
        expect(same(await sealAsync(payload, fixedAsync(b)), wire)).toBe(true);
      }
    },
  );

  it.each([
    ['ASCII', asciiMb],
    ['non-ASCII, escapes', mixedMb],
  ] as const)('%s: open, openAsync (every backend) and openPayloadBytes agree', async (_n, payload) => {
    const wire = seal(payload, base);
    const bytes = decodeBase64Strict(wire)!;
    expect(open(wire, openAs(0)).payload).toEqual(payload);
    expect(open(bytes, openAs(1)).payload).toEqual(payload);
    for (const b of backends) {
      expect((await openAsync(wire, { ...openAs(0), backend: b })).payload).toEqual(payload);
    }
    const raw = openPayloadBytes(bytes, openAs(0));
    expect(Buffer.from(raw.payloadJson).toString('utf8')).toBe(JSON.stringify(payload));
    const { payload: parsed, ...metadata } = open(wire, openAs(0));
    const { payloadJson, ...rawMetadata } = openPayloadBytes(wire, openAs(0));
    expect(rawMetadata).toEqual(metadata);
    expect(JSON.parse(Buffer.from(payloadJson).toString('utf8'))).toEqual(parsed);
  });

  it('opens a large envelope inside the senderKey lookup of another (the scratch is busy, not shared)', () => {
    const outer = seal(asciiMb, base);
    const inner = seal(mixedMb, base);
    let innerPayload: unknown;
    const result = open(outer, {
      ...openAs(0),
      senderKey: () => {
        innerPayload = open(inner, openAs(1)).payload;
        return p.sender.signing.publicKey;
      },
    });
    expect(result.payload).toEqual(asciiMb);
    expect(innerPayload).toEqual(mixedMb);
    // Released afterwards, also when open fails.
    expect(
      catchCrypto(() => open(outer, { ...openAs(0), senderKey: p.recipients[0]!.signing.publicKey })).reason,
    ).toBe('signature');
    expect(borrowScratch(MB)).toBeDefined();
    releaseScratch();
  });

  it('does not use the scratch above its cap and leaves no plaintext in it', () => {
    const huge = { type: 'text', text: 'y'.repeat(SCRATCH_MAX_BYTES) };
    const wire = seal(huge, base);
    expect(open(wire, openAs(0)).payload).toEqual(huge);
    const secret = 'secret-plaintext-'.repeat(70_000);
    seal({ type: 'text', text: secret }, base);
    const scratch = borrowScratch(MB)!;
    releaseScratch();
    expect(Buffer.from(scratch).includes('secret-plaintext-')).toBe(false);
  });

  it('clears the plaintext from the scratch when encryption throws', () => {
    const failing = {
      ...node,
      sync: {
        ...node.sync,
        aesGcmEncryptInto: () => {
          throw new Error('encryption failed');
        },
      },
    };
    const secret = 'do-not-leave-me-behind-'.repeat(50_000);
    expect(() => seal({ type: 'text', text: secret }, { ...base, backend: failing })).toThrow(
      'encryption failed',
    );
    const scratch = borrowScratch(MB)!;
    releaseScratch();
    expect(Buffer.from(scratch).includes('do-not-leave-me-behind-')).toBe(false);
  });

  it('a backend without aesGcmEncryptInto seals the same bytes', () => {
    const { aesGcmEncryptInto: _dropped, ...sync } = node.sync;
    const plain = { ...node, sync };
    expect(
      same(
        seal(asciiMb, { ...base, backend: withFixedRandomness(plain, fixed()) }),
        seal(asciiMb, fixedOptions()),
      ),
    ).toBe(true);
  });
});

describe('openPayloadBytes', () => {
  it('returns the exact plaintext, also when it is not JSON (no parse step)', () => {
    const env = sealPlaintext(utf8('not json at all'), base);
    expect(catchCrypto(() => open(env, openAs(0))).reason).toBe('parse');
    expect(Buffer.from(openPayloadBytes(env, openAs(0)).payloadJson).toString()).toBe('not json at all');
  });

  it('reports every failure before parse like open', () => {
    const env = sealBytes({ type: 'text', text: 'hi' }, base);
    expect(catchCrypto(() => openPayloadBytes(env, { ...openAs(0), recipientId: 'nobody' })).reason).toBe(
      'no_wrap',
    );
    const tampered = Uint8Array.from(env);
    tampered[tampered.length - 70]! ^= 1;
    expect(catchCrypto(() => openPayloadBytes(tampered, openAs(0))).reason).toBe('signature');
    expect(catchCrypto(() => openPayloadBytes('not base64!', openAs(0))).code).toBe('INVALID_ENVELOPE');
  });
});

describe('sealPayloadBytes input checks', () => {
  it.each([
    ['not bytes', 'text' as unknown as Uint8Array, 'must be a Uint8Array'],
    ['empty', new Uint8Array(0), 'JSON text of an object'],
    ['an array', utf8('[1,2]'), 'JSON text of an object'],
    ['a string', utf8('"{}"'), 'JSON text of an object'],
    ['only a brace', utf8(' { '), 'JSON text of an object'],
    ['a byte order mark', utf8('\uFEFF{"a":1}'), 'byte order mark'],
    ['invalid UTF-8', Uint8Array.of(0x7b, 0xff, 0x7d), 'not valid UTF-8'],
  ])('refuses %s with a ValidationError', (_name, bytes, message) => {
    expect(() => sealPayloadBytes(bytes, base)).toThrow(ValidationError);
    expect(() => sealPayloadBytes(bytes, base)).toThrow(message);
  });

  it('accepts JSON whitespace around the object', () => {
    const env = sealPayloadBytes(utf8(' \n{"type":"text","text":"hi"}\t\r\n'), base);
    expect(open(env, openAs(0)).payload).toEqual({ type: 'text', text: 'hi' });
  });

  it('property: arbitrary bytes are accepted or refused with a ValidationError, never a crash', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        try {
          expect(checkPayloadJsonBytes(bytes)).toBe(bytes);
        } catch (err) {
          expect(err).toBeInstanceOf(ValidationError);
        }
      }),
    );
  });
});

describe('properties', () => {
  const payloadArb = fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 6 });
  const json = (x: unknown): unknown => JSON.parse(JSON.stringify(x));

  it('seal → open round-trips arbitrary payloads across backends, fast paths identical to sealAsync', async () => {
    await fc.assert(
      fc.asyncProperty(payloadArb, fc.nat({ max: 40_000 }), async (payload, pad) => {
        // Padding pushes some cases over the scratch threshold (16 KiB).
        const value = { ...payload, pad: 'p'.repeat(pad) };
        const wire = seal(value, fixedOptions());
        expect(
          same(sealPayloadBytes(utf8(JSON.stringify(value)), fixedOptions()), decodeBase64Strict(wire)),
        ).toBe(true);
        for (const b of backends) {
          expect(same(await sealAsync(value, fixedAsync(b)), wire)).toBe(true);
          expect((await openAsync(wire, { ...openAs(1), backend: b })).payload).toEqual(json(value));
        }
        expect(open(wire, openAs(0)).payload).toEqual(json(value));
        expect(JSON.parse(Buffer.from(openPayloadBytes(wire, openAs(0)).payloadJson).toString())).toEqual(
          json(value),
        );
        expect(same(await sealBytesAsync(value, fixedOptions()), decodeBase64Strict(wire))).toBe(true);
      }),
      { numRuns: 25 },
    );
  });

  it('base64 decoded into a target equals the plain decode, valid or not', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('base64')),
          fc.string({ maxLength: 80 }),
          fc
            .uint8Array({ minLength: 1, maxLength: 90 })
            .map((b) => Buffer.from(b).toString('base64').replace(/.$/, '-')),
        ),
        (text) => {
          const plain = decodeBase64Strict(text);
          let allocated = 0;
          const into = decodeBase64Strict(text, (size) => new Uint8Array((allocated = size)));
          expect(into === undefined ? undefined : Array.from(into)).toEqual(
            plain === undefined ? undefined : Array.from(plain),
          );
          if (into !== undefined) expect(allocated).toBe(into.length);
        },
      ),
    );
  });
});
