/**
 * Property tests of the file parsers: the chunk reader frames any split of a
 * valid object exactly like the whole, and never throws anything but a
 * FileIntegrityError on arbitrary bytes; decryption of any split gives the
 * plaintext back, and of any mutation of an object (whole or split) fails
 * with FileIntegrityError; the `file` payload schema accepts
 * every well-formed payload and refuses malformed ones with a ValidationError.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../packages/sdk/src/core/errors/validation-error.js';
import { hasControlChar } from '../../../packages/sdk/src/core/field-rules.js';
import { FileIntegrityError } from '../../../packages/sdk/src/core/errors/file-integrity-error.js';
import { FilePayloadSchema, parseFilePayload } from '../../../packages/sdk/src/core/protocol/file-payload.js';
import { ChunkReader, type SealedChunk } from '../../../packages/sdk/src/crypto/file-stream/chunk-reader.js';
import { decryptFileStream } from '../../../packages/sdk/src/crypto/file-stream/decrypt.js';
import {
  createFileEncryptionParams,
  encryptFileBytes,
} from '../../../packages/sdk/src/crypto/file-stream/encrypt.js';

function frame(pieces: Uint8Array[]): SealedChunk[] {
  const reader = new ChunkReader();
  const out: SealedChunk[] = [];
  for (const p of pieces) out.push(...reader.push(p));
  out.push(reader.end());
  return out;
}

function splitAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let at = 0;
  for (const p of points) {
    out.push(bytes.subarray(at, p));
    at = p;
  }
  out.push(bytes.subarray(at));
  return out;
}

const params = createFileEncryptionParams(16_384);

describe('chunk reader', () => {
  it('frames any split of a valid object like the whole object', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 70_000 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        async (n, cuts) => {
          const ct = await encryptFileBytes(new Uint8Array(n), params);
          const whole = frame([ct]);
          const split = frame(splitAt(ct, cuts));
          expect(split.map((c) => [c.index, c.last, Buffer.from(c.bytes).toString('hex')])).toEqual(
            whole.map((c) => [c.index, c.last, Buffer.from(c.bytes).toString('hex')]),
          );
          expect(whole.at(-1)?.last).toBe(true);
          expect(whole.filter((c) => c.last)).toHaveLength(1);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('arbitrary bytes: frames or throws FileIntegrityError, nothing else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.boolean(), (bytes, magic) => {
        const input = magic ? Buffer.concat([Buffer.from('AMSF'), bytes]) : bytes;
        try {
          frame([input]);
        } catch (err) {
          expect(err).toBeInstanceOf(FileIntegrityError);
        }
      }),
    );
  });
});

describe('decryption of any split', () => {
  it('gives back the plaintext whatever pieces the ciphertext arrives in', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 70_000 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        async (n, cuts) => {
          const plaintext = randomBytes(n);
          const ct = await encryptFileBytes(plaintext, params);
          const out: Uint8Array[] = [];
          for await (const p of decryptFileStream(splitAt(ct, cuts), params.key, { size: n })) out.push(p);
          expect(Buffer.concat(out).equals(plaintext)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('decryption of mutated objects', () => {
  it('any flipped byte, cut or extension fails with FileIntegrityError', async () => {
    const plaintext = randomBytes(40_000);
    const ct = await encryptFileBytes(plaintext, params);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.record({
            kind: fc.constant('flip' as const),
            at: fc.nat(),
            bit: fc.integer({ min: 0, max: 7 }),
          }),
          fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
          fc.record({
            kind: fc.constant('extend' as const),
            extra: fc.uint8Array({ minLength: 1, maxLength: 40 }),
          }),
        ),
        fc.array(fc.nat(), { maxLength: 8 }),
        async (m, cuts) => {
          let bad: Buffer;
          if (m.kind === 'flip') {
            bad = Buffer.from(ct);
            bad[m.at % bad.length]! ^= 1 << m.bit;
          } else if (m.kind === 'cut') {
            bad = Buffer.from(ct.subarray(0, m.at % ct.length));
          } else {
            bad = Buffer.concat([ct, m.extra]);
          }
          // Whole, and split anywhere (a chunk then goes through the cipher piece by piece).
          for (const pieces of [[bad], splitAt(bad, cuts)]) {
            const err = await (async () => {
              for await (const _ of decryptFileStream(pieces, params.key)) void _;
            })().then(
              () => undefined,
              (e: unknown) => e,
            );
            expect(err).toBeInstanceOf(FileIntegrityError);
          }
        },
      ),
      { numRuns: 80 },
    );
  });
});

const validPayload = fc.record({
  type: fc.constant('file'),
  format: fc.constant('amsf-v1'),
  object_key: fc.stringMatching(/^[a-z0-9_-]{1,40}$/),
  name: fc.string({ minLength: 1, maxLength: 255 }).filter((s) => !hasControlChar(s)),
  content_type: fc.constantFrom('text/plain', 'application/pdf', 'image/png'),
  size: fc.integer({ min: 0, max: 100 * 1_048_576 }),
  chunk_size: fc.integer({ min: 16_384, max: 4 * 1_048_576 }),
  ciphertext_size: fc.integer({ min: 32, max: 2 ** 31 }),
  ciphertext_sha256: fc
    .uint8Array({ minLength: 32, maxLength: 32 })
    .map((b) => Buffer.from(b).toString('hex')),
  key: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('base64')),
});

describe('file payload schema', () => {
  it('accepts every well-formed payload', () => {
    fc.assert(
      fc.property(validPayload, (p) => {
        expect(parseFilePayload(p)).toMatchObject(p);
      }),
    );
  });

  it('refuses any one field broken, with a ValidationError naming that field', () => {
    const breakers: Record<string, fc.Arbitrary<unknown>> = {
      type: fc.constantFrom('text', 'File', 7),
      format: fc.constantFrom('amsf-v2', '', null),
      object_key: fc.constantFrom('', '../x', 'a?b', 'a#b', 'a\\b', 5),
      name: fc.constantFrom('', 'a\nb', 'x'.repeat(256), 3),
      content_type: fc.constantFrom('text', '', 'a b/c', 1),
      size: fc.constantFrom(-1, 1.5, 100 * 1_048_576 + 1, '1'),
      chunk_size: fc.constantFrom(16_383, 4 * 1_048_576 + 1, 0),
      ciphertext_size: fc.constantFrom(31, -1, 2.5),
      ciphertext_sha256: fc.constantFrom('', 'A'.repeat(64), 'a'.repeat(63), 'g'.repeat(64)),
      key: fc.constantFrom('', 'AAAA', Buffer.alloc(31).toString('base64'), 'not base64!'),
    };
    fc.assert(
      fc.property(validPayload, fc.constantFrom(...Object.keys(breakers)), fc.nat(), (p, field, pick) => {
        const arb = breakers[field]!;
        const value = fc.sample(arb, { numRuns: 8, seed: pick })[pick % 8];
        const broken = { ...p, [field]: value };
        let error: unknown;
        try {
          parseFilePayload(broken);
        } catch (err) {
          error = err;
        }
        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).issues.some((i) => i.path[0] === field)).toBe(true);
        expect((error as ValidationError).message).not.toContain(String(p.key));
      }),
    );
  });

  it('arbitrary JSON values: a payload or a ValidationError, nothing else', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const result = FilePayloadSchema.safeParse(value);
        if (result.success) return;
        expect(() => parseFilePayload(value)).toThrow(ValidationError);
      }),
    );
  });
});
