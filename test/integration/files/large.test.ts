/**
 * The real 100 MB limit, streamed without holding the body in memory (one
 * reused 1 MiB buffer): the server stops a chunked body just over its cap
 * with 413 FILE_TOO_LARGE, and the SDK refuses a stream source as soon as
 * it passes 100 MB. Each takes about a second on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isServiceError, isValidationError } from '../../../packages/sdk/src/core/errors/index.js';
import { FILE_MAX_BYTES } from '../../../packages/sdk/src/core/limits/objects.js';
import { maxCiphertextSize } from '../../../packages/sdk/src/crypto/file-stream/format.js';
import { createTestWorld, type TestWorld } from '../../../packages/dev/src/testing/index.js';

const MIB = new Uint8Array(1_048_576);

async function* zeros(total: number): AsyncGenerator<Uint8Array> {
  let left = total;
  while (left > 0) {
    const n = Math.min(left, MIB.length);
    yield n === MIB.length ? MIB : MIB.subarray(0, n);
    left -= n;
  }
}

let world: TestWorld;
beforeAll(async () => {
  world = await createTestWorld();
});
afterAll(() => world.close());

describe('100 MB limit', () => {
  it('the server refuses a chunked body one byte over its cap (FILE_TOO_LARGE, 413)', async () => {
    const cap = maxCiphertextSize(FILE_MAX_BYTES) + 32;
    const err = await world.agent.api.rest
      .stream({
        method: 'POST',
        path: `/conversations/${world.conversationId}/files`,
        contentType: 'application/octet-stream',
        body: zeros(cap + 1),
      })
      .catch((e: unknown) => e);
    expect(isServiceError(err, 'FILE_TOO_LARGE')).toBe(true);
    expect((err as { status: number }).status).toBe(413);
  }, 30_000);

  it('the SDK refuses a stream source as soon as it passes 100 MB', async () => {
    const err = await world.agent.files
      .upload(world.conversationId, zeros(FILE_MAX_BYTES + 1), { name: 'big.bin' })
      .catch((e: unknown) => e);
    expect(isValidationError(err)).toBe(true);
    expect((err as { params: { reason: string } }).params.reason).toBe('file_too_large');
  }, 30_000);
});
