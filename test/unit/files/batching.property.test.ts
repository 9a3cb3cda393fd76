/**
 * Property tests of the copy-and-batch helpers of file transfers: the
 * upload's ciphertext batcher and the download's plaintext file writer give
 * back exactly the bytes they were given, in order, for any split of the
 * input into pieces (including empty pieces and pieces larger than a
 * batch), and the batcher's full batches all have the batch size.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CiphertextBatcher } from '../../../src/files/batcher.js';
import { writeBatchesToFile, WRITE_BATCH_BYTES } from '../../../src/files/write-file.js';

function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = cuts.map((c) => c % (bytes.length + 1)).sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let at = 0;
  for (const p of [...points, bytes.length]) {
    out.push(bytes.subarray(at, p));
    at = p;
  }
  return out;
}

describe('CiphertextBatcher', () => {
  it('returns full batches of the batch size, then the rest with the extra bytes, equal to the input', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5000 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.integer({ min: 1, max: 700 }),
        fc.boolean(),
        (length, cuts, size, known) => {
          const input = randomBytes(length);
          const extra = randomBytes(32);
          const batcher = new CiphertextBatcher(32, known ? length : undefined, size);
          const out: Uint8Array[] = [];
          for (const piece of split(input, cuts)) {
            for (const full of batcher.add([piece, new Uint8Array(0)])) {
              expect(full.length).toBe(known ? Math.max(1, Math.min(size, length)) : size);
              out.push(Uint8Array.from(full));
            }
          }
          expect(batcher.rest().length).toBeLessThan(known ? Math.max(1, Math.min(size, length)) : size);
          out.push(batcher.restWith(extra));
          expect(Buffer.concat(out).equals(Buffer.concat([input, extra]))).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses extra bytes beyond its spare room', () => {
    const batcher = new CiphertextBatcher(4);
    batcher.add([randomBytes(10)]);
    expect(() => batcher.restWith(randomBytes(5))).toThrow(RangeError);
  });
});

describe('writeBatchesToFile', () => {
  it('writes exactly the pieces given, across batch boundaries', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ams-batch-test-'));
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 3 * WRITE_BATCH_BYTES + 100 }),
          fc.array(fc.nat(), { maxLength: 8 }),
          fc.integer({ min: 1, max: 3 }),
          async (length, cuts, group) => {
            const input = randomBytes(length);
            const pieces = split(input, cuts);
            const path = join(dir, 'out');
            await writeBatchesToFile(path, async (writer) => {
              for (let i = 0; i < pieces.length; i += group) {
                const due = writer.add(pieces.slice(i, i + group));
                if (due !== undefined) await due;
              }
            });
            expect((await readFile(path)).equals(input)).toBe(true);
          },
        ),
        { numRuns: 25 },
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('closes the file and rethrows when the producer fails', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ams-batch-test-'));
    try {
      const failure = new Error('producer failed');
      await expect(
        writeBatchesToFile(join(dir, 'out'), async (writer) => {
          await writer.add([randomBytes(WRITE_BATCH_BYTES + 1)]);
          throw failure;
        }),
      ).rejects.toBe(failure);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
