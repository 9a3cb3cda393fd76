import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromUtf8, toBase64, utf8 } from '../../../../src/core/encoding.js';
import { isCryptoError } from '../../../../src/core/errors/index.js';
import {
  KEY_RING_MAX_BYTES,
  KeyRing,
  decodeKeyRing,
  encodeKeyRing,
} from '../../../../src/crypto/key-store/index.js';
import { generateKeys } from '../../../../src/crypto/keys.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const first = generateKeys();
const second = generateKeys();
const ring = KeyRing.create(first, T0).rotate(second, T0 + 1000);
const stored = JSON.parse(fromUtf8(encodeKeyRing(ring))!) as Record<string, unknown> & {
  current: Record<string, unknown>;
  retired: Record<string, unknown>[];
};

function corruptCode(data: Uint8Array): string | undefined {
  try {
    decodeKeyRing(data, '/keys/keys.json');
    return undefined;
  } catch (err) {
    if (!isCryptoError(err)) throw err;
    expect(err.file).toBe('/keys/keys.json');
    expect(err.message).toContain('/keys/keys.json');
    return err.code;
  }
}
const json = (v: unknown): Uint8Array => utf8(JSON.stringify(v));

describe('key ring codec', () => {
  it('round-trips a ring with a retired generation', () => {
    const back = decodeKeyRing(encodeKeyRing(ring), 'mem');
    expect(back.current.keys.encryption.privateKey).toEqual(second.encryption.privateKey);
    expect(back.current.keys.signing.privateKey).toEqual(second.signing.privateKey);
    expect(back.current.createdAt).toBe(T0 + 1000);
    expect(back.retired).toHaveLength(1);
    expect(back.retired[0]!.encryption.privateKey).toEqual(first.encryption.privateKey);
    expect(back.retired[0]!.notAfter).toBe(ring.retired[0]!.notAfter);
    expect(stored.retired[0]).not.toHaveProperty('ed25519_private_key'); // old signing key erased
  });

  it('reports corruption naming the file and never a key', () => {
    const cases: Uint8Array[] = [
      new Uint8Array(0),
      Uint8Array.of(0xff, 0xfe),
      utf8('{"format": '),
      utf8(`{"x": "${toBase64(second.encryption.privateKey)}"`),
      json({ ...stored, version: 2 }),
      json({ ...stored, extra: 1 }),
      json({
        ...stored,
        current: { ...stored.current, x25519_public_key: toBase64(first.encryption.publicKey) },
      }),
      json({
        ...stored,
        current: { ...stored.current, ed25519_private_key: toBase64(first.signing.privateKey) },
      }),
      json({ ...stored, current: { ...stored.current, created_at_ms: -1 } }),
      json({
        ...stored,
        retired: [{ ...stored.retired[0], x25519_public_key: stored.current['x25519_public_key'] }],
      }),
      json({ ...stored, retired: [stored.retired[0], stored.retired[0]] }),
      new Uint8Array(KEY_RING_MAX_BYTES + 1).fill(0x20),
    ];
    for (const data of cases) {
      expect(corruptCode(data)).toBe('KEY_STORE_CORRUPT');
      try {
        decodeKeyRing(data, 'f');
      } catch (err) {
        for (const key of [first, second]) {
          expect((err as Error).message).not.toContain(toBase64(key.encryption.privateKey));
          expect((err as Error).message).not.toContain(toBase64(key.signing.privateKey));
        }
      }
    }
  });

  it('a flipped byte anywhere is either harmless whitespace/JSON-equal or KEY_STORE_CORRUPT', () => {
    const data = encodeKeyRing(ring);
    fc.assert(
      fc.property(fc.nat({ max: data.length - 1 }), fc.integer({ min: 1, max: 255 }), (i, x) => {
        const copy = data.slice();
        copy[i] = copy[i]! ^ x;
        const code = corruptCode(copy);
        if (code === undefined) {
          // Only edits that leave the same ring (e.g. whitespace) may pass.
          const back = decodeKeyRing(copy, 'f');
          expect(back.current.keys.encryption.privateKey).toEqual(second.encryption.privateKey);
        } else expect(code).toBe('KEY_STORE_CORRUPT');
      }),
      { numRuns: 300 },
    );
  });

  it('arbitrary bytes and JSON values only ever give KEY_STORE_CORRUPT', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array(),
          fc.jsonValue().map(json),
          fc.anything().map((v) => json({ ...stored, current: v })),
        ),
        (data) => {
          expect(corruptCode(data)).toBe('KEY_STORE_CORRUPT');
        },
      ),
      { numRuns: 300 },
    );
  });
});
