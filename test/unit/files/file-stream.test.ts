/**
 * The file construction (AMSF v1): the test vectors of docs/files.md, an
 * independent recomputation of one vector with node:crypto, round trips over
 * sizes and piece splits, and every kind of tampering failing with a typed
 * FileIntegrityError.
 */
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FileIntegrityError } from '../../../packages/sdk/src/core/errors/file-integrity-error.js';
import { decryptFileStream } from '../../../packages/sdk/src/crypto/file-stream/decrypt.js';
import {
  createFileEncryptionParams,
  encryptFileBytes,
  encryptFileStream,
  type FileEncryptionParams,
} from '../../../packages/sdk/src/crypto/file-stream/encrypt.js';
import { ciphertextSize, encodeFileHeader } from '../../../packages/sdk/src/crypto/file-stream/format.js';

const VECTOR_PARAMS: FileEncryptionParams = {
  key: Uint8Array.from({ length: 32 }, (_, i) => i),
  noncePrefix: Uint8Array.from({ length: 7 }, (_, i) => 0xa0 + i),
  chunkSize: 16_384,
};
const pattern = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => i % 251);
const PLAINTEXTS: Record<string, Uint8Array> = {
  empty: new Uint8Array(),
  hello: new TextEncoder().encode('hello, file'),
  'one-chunk': pattern(16_384),
  'two-chunks': pattern(16_385),
};

function docVectors(): { name: string; size: number; ctSize: number; sha256: string; hex: string }[] {
  const doc = readFileSync(new URL('../../../docs/files.md', import.meta.url), 'utf8');
  const block = /```vectors\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
  return block
    .trim()
    .split('\n')
    .map((line) => line.split('|').map((c) => c.trim()))
    .map(([name, size, ctSize, sha256, hex]) => ({
      name: name!,
      size: Number(size),
      ctSize: Number(ctSize),
      sha256: sha256!,
      hex: hex!,
    }));
}

async function decryptAll(pieces: Iterable<Uint8Array>, key: Uint8Array, size?: number): Promise<Buffer> {
  const out: Uint8Array[] = [];
  for await (const p of decryptFileStream(pieces, key, size === undefined ? {} : { size })) out.push(p);
  return Buffer.concat(out);
}

async function failureOf(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FileIntegrityError);
  expect((err as FileIntegrityError).code).toBe('FILE_CORRUPT');
  return (err as FileIntegrityError).failure;
}

describe('test vectors (docs/files.md)', () => {
  const vectors = docVectors();
  it('lists the four vectors', () => {
    expect(vectors.map((v) => v.name)).toEqual(Object.keys(PLAINTEXTS));
  });
  for (const v of docVectors()) {
    it(`${v.name}: object size, SHA-256, bytes, and decryption`, async () => {
      const plaintext = PLAINTEXTS[v.name]!;
      expect(plaintext.length).toBe(v.size);
      const ct = await encryptFileBytes(plaintext, VECTOR_PARAMS);
      expect(ct.length).toBe(v.ctSize);
      expect(ciphertextSize(v.size, 16_384)).toBe(v.ctSize);
      expect(createHash('sha256').update(ct).digest('hex')).toBe(v.sha256);
      if (v.hex !== '-') expect(Buffer.from(ct).toString('hex')).toBe(v.hex);
      expect((await decryptAll([ct], VECTOR_PARAMS.key)).equals(plaintext)).toBe(true);
    });
  }

  it('hello: recomputed independently with node:crypto from the construction text', () => {
    const header = Buffer.concat([
      Buffer.from('AMSF'),
      Buffer.of(1, 0x00, 0x00, 0x40, 0x00),
      Buffer.from(VECTOR_PARAMS.noncePrefix),
    ]);
    expect(header.equals(encodeFileHeader(16_384, VECTOR_PARAMS.noncePrefix))).toBe(true);
    const nonce = Buffer.concat([Buffer.from(VECTOR_PARAMS.noncePrefix), Buffer.of(0, 0, 0, 0, 1)]);
    const cipher = createCipheriv('aes-256-gcm', VECTOR_PARAMS.key, nonce).setAAD(header);
    const body = Buffer.concat([cipher.update('hello, file'), cipher.final(), cipher.getAuthTag()]);
    const hello = docVectors().find((v) => v.name === 'hello')!;
    expect(Buffer.concat([header, body]).toString('hex')).toBe(hello.hex);
  });
});

describe('round trips', () => {
  it.each([0, 1, 16_383, 16_384, 16_385, 65_536 * 3, 65_536 * 3 + 7])(
    '%i bytes, odd piece sizes',
    async (n) => {
      const params = createFileEncryptionParams(16_384);
      const plaintext = randomBytes(n);
      const pieces: Uint8Array[] = [];
      for (let at = 0; at < n; at += 1_000 + (at % 7_919))
        pieces.push(plaintext.subarray(at, at + 1_000 + (at % 7_919)));
      const ct: Uint8Array[] = [];
      for await (const p of encryptFileStream(pieces, params)) ct.push(p);
      const joined = Buffer.concat(ct);
      expect(joined.length).toBe(ciphertextSize(n, 16_384));
      // Fed back in 3-byte and 50 000-byte pieces.
      for (const step of [3, 50_000]) {
        const split: Uint8Array[] = [];
        for (let at = 0; at < joined.length; at += step) split.push(joined.subarray(at, at + step));
        expect((await decryptAll(split, params.key, n)).equals(plaintext)).toBe(true);
      }
    },
  );
});

describe('tampering', () => {
  const params = createFileEncryptionParams(16_384);
  const plaintext = randomBytes(16_384 * 3 + 100);
  const ctPromise = encryptFileBytes(plaintext, params);
  const segment = 16_384 + 16;
  const chunkAt = (ct: Uint8Array, i: number): Uint8Array =>
    ct.subarray(16 + i * segment, 16 + (i + 1) * segment);

  it('a modified byte in a chunk fails `chunk`', async () => {
    const ct = Buffer.from(await ctPromise);
    ct[16 + segment + 5]! ^= 1;
    expect(await failureOf(decryptAll([ct], params.key))).toBe('chunk');
  });

  it('a modified tag fails `chunk`', async () => {
    const ct = Buffer.from(await ctPromise);
    ct[ct.length - 1]! ^= 0x80;
    expect(await failureOf(decryptAll([ct], params.key))).toBe('chunk');
  });

  it('truncation at a chunk boundary fails (the last chunk is missing)', async () => {
    const ct = await ctPromise;
    expect(await failureOf(decryptAll([ct.subarray(0, 16 + 2 * segment)], params.key))).toBe('chunk');
  });

  it('truncation inside a tag fails', async () => {
    const ct = await ctPromise;
    expect(['chunk', 'truncated']).toContain(
      await failureOf(decryptAll([ct.subarray(0, ct.length - 5)], params.key)),
    );
    expect(await failureOf(decryptAll([ct.subarray(0, 16 + 3 * segment + 4)], params.key))).toBe('truncated');
    expect(await failureOf(decryptAll([ct.subarray(0, 10)], params.key))).toBe('header');
  });

  it('reordered chunks fail `chunk`', async () => {
    const ct = await ctPromise;
    const swapped = Buffer.concat([
      ct.subarray(0, 16),
      chunkAt(ct, 1),
      chunkAt(ct, 0),
      ct.subarray(16 + 2 * segment),
    ]);
    expect(await failureOf(decryptAll([swapped], params.key))).toBe('chunk');
  });

  it('a chunk from another file under the same key fails `chunk`', async () => {
    const ct = await ctPromise;
    const otherParams = { ...createFileEncryptionParams(16_384), key: params.key };
    const other = await encryptFileBytes(randomBytes(16_384 * 3 + 100), otherParams);
    const mixed = Buffer.concat([
      ct.subarray(0, 16 + segment),
      chunkAt(other, 1),
      ct.subarray(16 + 2 * segment),
    ]);
    expect(await failureOf(decryptAll([mixed], params.key))).toBe('chunk');
  });

  it('bytes appended after the last chunk fail', async () => {
    const ct = await ctPromise;
    expect(await failureOf(decryptAll([ct, Buffer.from('x')], params.key))).toBe('chunk');
  });

  it('a modified header (chunk size, prefix, magic, version) fails', async () => {
    const ct = Buffer.from(await ctPromise);
    const prefix = Buffer.from(ct);
    prefix[10]! ^= 1;
    expect(await failureOf(decryptAll([prefix], params.key))).toBe('chunk');
    const magic = Buffer.from(ct);
    magic[0] = 0x42;
    expect(await failureOf(decryptAll([magic], params.key))).toBe('header');
    const version = Buffer.from(ct);
    version[4] = 2;
    expect(await failureOf(decryptAll([version], params.key))).toBe('header');
    const size = Buffer.from(ct);
    size[7] = 0x80; // 32 KiB + …: a valid size, but not the one sealed
    expect(await failureOf(decryptAll([size], params.key))).toBe('chunk');
  });

  it('the wrong key fails `chunk`; a wrong declared size fails `size`', async () => {
    const ct = await ctPromise;
    expect(await failureOf(decryptAll([ct], randomBytes(32)))).toBe('chunk');
    expect(await failureOf(decryptAll([ct], params.key, plaintext.length - 1))).toBe('size');
    expect(await failureOf(decryptAll([ct], params.key, plaintext.length + 1))).toBe('size');
  });
});
