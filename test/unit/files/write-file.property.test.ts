/**
 * Property tests of the download's plaintext file writer: it writes exactly
 * the bytes it was given, in order, for any split of the input into pieces
 * (including empty pieces and pieces larger than a batch), and closes the
 * file when the producer fails.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { writeBatchesToFile, WRITE_BATCH_BYTES } from '../../../packages/sdk/src/files/write-file.js';

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
