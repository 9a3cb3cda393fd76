import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromUtf8, toBase64, utf8 } from '../../../../packages/sdk/src/core/encoding.js';
import { isCryptoError } from '../../../../packages/sdk/src/core/errors/index.js';
import {
  KEY_RING_MAX_BYTES,
  KeyRing,
  decodeKeyRing,
  decodeKeyRingFile,
  encodeKeyRing,
} from '../../../../packages/sdk/src/crypto/key-store/index.js';
import { generateKeys } from '../../../../packages/sdk/src/crypto/keys.js';

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
const pretty = (v: unknown): string => `${JSON.stringify(v, null, 2)}\n`;
const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');
/** A canonical version 2 file of `body` (without `sha256`) with a correct checksum: reaches the checks behind it. */
function sealed(body: Record<string, unknown>): Uint8Array {
  const { sha256: _drop, ...rest } = body;
  return utf8(pretty({ ...rest, sha256: sha256Hex(pretty(rest)) }));
}
/** The same content as a version 1 (legacy) file. */
function legacy(body: Record<string, unknown>): Uint8Array {
  const { sha256: _drop, ...rest } = body;
  return utf8(pretty({ ...rest, version: 1 }));
}

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

  it('writes version 2 with sha256 over the canonical encoding of everything else, last', () => {
    const { sha256, ...body } = stored;
    expect(Object.keys(stored)).toEqual(['format', 'version', 'current', 'retired', 'sha256']);
    expect(body['version']).toBe(2);
    expect(sha256).toBe(sha256Hex(pretty(body)));
    expect(fromUtf8(encodeKeyRing(ring))).toBe(pretty(stored));
    expect(decodeKeyRingFile(encodeKeyRing(ring), 'f').legacy).toBe(false);
  });

  it('reports corruption naming the file and never a key', () => {
    const cases: Uint8Array[] = [
      new Uint8Array(0),
      Uint8Array.of(0xff, 0xfe),
      utf8('{"format": '),
      utf8(`{"x": "${toBase64(second.encryption.privateKey)}"`),
      sealed({ ...stored, version: 3 }),
      sealed({ ...stored, extra: 1 }),
      sealed({
        ...stored,
        current: { ...stored.current, x25519_public_key: toBase64(first.encryption.publicKey) },
      }),
      sealed({
        ...stored,
        current: { ...stored.current, ed25519_private_key: toBase64(first.signing.privateKey) },
      }),
      sealed({ ...stored, current: { ...stored.current, created_at_ms: -1 } }),
      sealed({
        ...stored,
        retired: [{ ...stored.retired[0], x25519_public_key: stored.current['x25519_public_key'] }],
      }),
      sealed({ ...stored, retired: [stored.retired[0], stored.retired[0]] }),
      json({ ...stored, sha256: undefined }), // version 2 without a checksum
      utf8(pretty({ ...stored, version: 1 })), // version 1 with a checksum field
      json(stored), // right content and checksum, not the canonical bytes
      utf8(` ${pretty(stored)}`),
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

  it('names the failed check: checksum mismatch, canonical form', () => {
    const message = (data: Uint8Array): string => {
      try {
        decodeKeyRing(data, 'f');
      } catch (err) {
        return (err as Error).message;
      }
      throw new Error('expected KEY_STORE_CORRUPT');
    };
    const later = { ...stored.retired[0], not_after_ms: Number(stored.retired[0]!['not_after_ms']) + 1 };
    expect(message(utf8(pretty({ ...stored, retired: [later] })))).toBe(
      'Key store f is corrupt: checksum mismatch',
    );
    expect(message(json(stored))).toBe('Key store f is corrupt: not in canonical form');
  });

  it('every single-bit flip of a saved file is KEY_STORE_CORRUPT (exhaustive)', () => {
    const data = encodeKeyRing(ring);
    let flips = 0;
    const undetected: string[] = [];
    for (let i = 0; i < data.length; i++) {
      for (let bit = 0; bit < 8; bit++) {
        const copy = data.slice();
        copy[i] = copy[i]! ^ (1 << bit);
        flips++;
        if (corruptCode(copy) !== 'KEY_STORE_CORRUPT') undetected.push(`byte ${i} bit ${bit}`);
      }
    }
    expect(data.length).toBe(789); // fixed times, 32-byte keys: the sample's size does not vary
    expect(flips).toBe(6312);
    expect(undetected).toEqual([]);
  });

  it('any change to one byte is KEY_STORE_CORRUPT (fixed seed)', () => {
    const data = encodeKeyRing(ring);
    fc.assert(
      fc.property(fc.nat({ max: data.length - 1 }), fc.integer({ min: 1, max: 255 }), (i, x) => {
        const copy = data.slice();
        copy[i] = copy[i]! ^ x;
        expect(corruptCode(copy)).toBe('KEY_STORE_CORRUPT');
      }),
      { seed: 0x6b657973, numRuns: 300 },
    );
  });

  it('reads a version 1 file (no checksum) as legacy, with the same ring', () => {
    const decoded = decodeKeyRingFile(legacy(stored), 'f');
    expect(decoded.legacy).toBe(true);
    expect(encodeKeyRing(decoded.ring)).toEqual(encodeKeyRing(ring));
    // Its keys are still checked against their public keys.
    const swapped = { ...stored.current, x25519_public_key: toBase64(first.encryption.publicKey) };
    expect(corruptCode(legacy({ ...stored, current: swapped }))).toBe('KEY_STORE_CORRUPT');
  });

  it('arbitrary bytes and JSON values only ever give KEY_STORE_CORRUPT', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array(),
          fc.jsonValue().map(json),
          fc.anything().map((v) => json({ ...stored, current: v })),
          fc.anything().map((v) => sealed({ ...stored, current: v })),
        ),
        (data) => {
          expect(corruptCode(data)).toBe('KEY_STORE_CORRUPT');
        },
      ),
      { seed: 0x636f6463, numRuns: 300 },
    );
  });
});
