/**
 * The console's in-page file decryption (WebCrypto, no node:crypto in its
 * path): an AMSF object made by the SDK opens to its plaintext; a changed
 * byte, a cut, an extra byte or a payload that names another object never
 * yields plaintext (property, fixed seed).
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decryptFile, fileOf } from '../../../packages/dev/src/console/files.js';
import { toBase64 } from '../../../packages/sdk/src/core/encoding.js';
import type { FilePayload } from '../../../packages/sdk/src/core/protocol/file-payload.js';
import {
  createFileEncryptionParams,
  encryptFileBytes,
} from '../../../packages/sdk/src/crypto/file-stream/encrypt.js';

async function sealed(plaintext: Uint8Array): Promise<{ object: Uint8Array; file: FilePayload }> {
  const params = createFileEncryptionParams(16_384);
  const object = new Uint8Array(await encryptFileBytes(plaintext, params));
  const file = fileOf({
    type: 'file',
    format: 'amsf-v1',
    object_key: 'file_test',
    name: 'data.bin',
    content_type: 'application/octet-stream',
    size: plaintext.length,
    chunk_size: params.chunkSize,
    ciphertext_size: object.length,
    ciphertext_sha256: createHash('sha256').update(object).digest('hex'),
    key: toBase64(params.key),
  })!;
  return { object, file };
}

const pattern = (n: number) => Uint8Array.from({ length: n }, (_, i) => i % 251);

describe('console file decryption', () => {
  it('opens empty, one-chunk and multi-chunk files made by the SDK', async () => {
    for (const n of [0, 11, 16_384, 16_385, 40_000]) {
      const { object, file } = await sealed(pattern(n));
      expect(await decryptFile(object, file)).toEqual(pattern(n));
    }
  });

  it('a payload that is not a file, or a malformed one, is not taken for a file', () => {
    expect(fileOf({ type: 'text', text: 'x' })).toBeUndefined();
    expect(fileOf({ type: 'file', name: 'x' })).toBeUndefined();
  });

  it('any changed byte, cut or extra byte fails; so does a payload naming another object (property)', async () => {
    const { object, file } = await sealed(pattern(20_000));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.record({
            kind: fc.constant('flip' as const),
            at: fc.nat(object.length - 1),
            bit: fc.integer({ min: 0, max: 7 }),
          }),
          fc.record({
            kind: fc.constant('cut' as const),
            at: fc.nat(object.length - 1),
            bit: fc.constant(0),
          }),
          fc.record({ kind: fc.constant('extra' as const), at: fc.nat(255), bit: fc.constant(0) }),
        ),
        async ({ kind, at, bit }) => {
          let changed: Uint8Array;
          if (kind === 'flip') {
            changed = object.slice();
            changed[at]! ^= 1 << bit;
          } else if (kind === 'cut') changed = object.slice(0, at);
          else changed = Uint8Array.of(...object, at);
          // As the object stands (sha256 and size of the payload no longer match)…
          await expect(decryptFile(changed, file)).rejects.toThrow();
          // …and with a payload rewritten to match it: the chunks still fail.
          const forged = {
            ...file,
            ciphertext_size: changed.length,
            ciphertext_sha256: createHash('sha256').update(changed).digest('hex'),
          };
          await expect(decryptFile(changed, forged)).rejects.toThrow();
        },
      ),
      { numRuns: 60 },
    );
  });
});
