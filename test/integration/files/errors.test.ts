/**
 * Every error code of the file area provoked for real against the reference
 * server: FILE_TOO_LARGE (from Content-Length before a byte is read, and while
 * streaming a body of unknown length), FILE_UPLOAD_RATE_LIMITED (429 with
 * Retry-After), SHA256_MISMATCH, NOT_CONVERSATION_MEMBER_UPLOAD; and a
 * non-member's fetch of a file object is 404 NOT_FOUND.
 */
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isRateLimitError,
  isServiceError,
  isValidationError,
} from '../../../packages/sdk/src/core/errors/index.js';
import {
  createFileEncryptionParams,
  encryptFileBytes,
} from '../../../packages/sdk/src/crypto/file-stream/encrypt.js';
import { createTestWorld, type TestWorld } from '../../../packages/dev/src/testing/index.js';
import { createRestClient } from '../../../packages/sdk/src/transport/rest/client.js';

const MAX_FILE = 32_768;

let world: TestWorld;
let other: TestWorld;
beforeAll(async () => {
  world = await createTestWorld({ server: { maxFileBytes: MAX_FILE } });
  other = await createTestWorld();
});
afterAll(async () => {
  await world.close();
  await other.close();
});

const uploadPath = (w: TestWorld): string => `/conversations/${w.conversationId}/files`;

/** A raw upload with the user's token (no client-side limiter): the answer's data, or the typed error. */
async function rawUpload(w: TestWorld, body: Uint8Array): Promise<unknown> {
  try {
    const res = await w.user.rest.stream({
      method: 'POST',
      path: uploadPath(w),
      body: (async function* () {
        yield body;
      })(),
      contentType: 'application/octet-stream',
    });
    for await (const _ of res.body) void _;
    return res.status;
  } catch (err) {
    return err;
  }
}

describe('file errors', () => {
  it('FILE_TOO_LARGE from Content-Length: answered before one body byte is sent', async () => {
    const { accessToken } = await world.server.control.accessToken(world.user.session!.userId);
    const url = new URL(`${world.server.url}${uploadPath(world)}`);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${accessToken}`,
          'content-type': 'application/octet-stream',
          'content-length': String(200 * 1_048_576),
        },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body });
          req.destroy();
        });
      });
      req.on('error', reject);
      req.flushHeaders(); // headers only: not one body byte is ever sent
    });
    expect(answer.status).toBe(413);
    expect((JSON.parse(answer.body) as { error: { code: string } }).error.code).toBe('FILE_TOO_LARGE');
  });

  it('FILE_TOO_LARGE while streaming a body of unknown length (SDK upload from a stream)', async () => {
    async function* big(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < 4; i++) yield randomBytes(16_384);
    }
    const err = await world.agent.files
      .upload(world.conversationId, big(), { name: 'big' })
      .catch((e: unknown) => e);
    expect(isServiceError(err, 'FILE_TOO_LARGE')).toBe(true);
    expect((err as { status: number }).status).toBe(413);
  });

  it('FILE_TOO_LARGE for a known size over the limit (Content-Length sent by the SDK)', async () => {
    const err = await world.user.files
      .upload(world.conversationId, randomBytes(MAX_FILE + 8_192), { name: 'big' })
      .catch((e: unknown) => e);
    expect(isServiceError(err, 'FILE_TOO_LARGE')).toBe(true);
  });

  it('SHA256_MISMATCH when the declared SHA-256 does not match the ciphertext', async () => {
    const ciphertext = await encryptFileBytes(randomBytes(1000), createFileEncryptionParams());
    const wrong = new Uint8Array(32).fill(7);
    const err = await rawUpload(world, Buffer.concat([ciphertext, wrong]));
    expect(isServiceError(err, 'SHA256_MISMATCH')).toBe(true);
    expect((err as { status: number }).status).toBe(400);
  });

  it('NOT_CONVERSATION_MEMBER_UPLOAD for an agent and a user outside the conversation', async () => {
    const asAgent = await other.agent.files
      .upload(world.conversationId, randomBytes(10), { name: 'x' })
      .catch((e: unknown) => e);
    expect(isServiceError(asAgent, 'NOT_CONVERSATION_MEMBER_UPLOAD')).toBe(true);
    expect((asAgent as { status: number }).status).toBe(403);
    const asUser = await other.user.files
      .upload(world.conversationId, randomBytes(10), { name: 'x' })
      .catch((e: unknown) => e);
    expect(isServiceError(asUser, 'NOT_CONVERSATION_MEMBER_UPLOAD')).toBe(true);
  });

  it('a non-member cannot fetch a file object (404 NOT_FOUND, existence not revealed)', async () => {
    const { file } = await world.agent.files.upload(world.conversationId, randomBytes(100), { name: 'x' });
    await world.waitForReply();
    const err = await other.user.files.download(file).catch((e: unknown) => e);
    expect(isServiceError(err, 'NOT_FOUND')).toBe(true);
  });

  it('FILE_UPLOAD_RATE_LIMITED: the 6th upload within a second is 429 with Retry-After', async () => {
    const ciphertext = await encryptFileBytes(randomBytes(10), createFileEncryptionParams());
    const digest = createHash('sha256').update(ciphertext).digest();
    const body = Buffer.concat([ciphertext, digest]);
    await world.advanceTime(1_000);
    const results = [];
    for (let i = 0; i < 6; i++) results.push(await rawUpload(world, body));
    expect(results.slice(0, 5)).toEqual([201, 201, 201, 201, 201]);
    const limited = results[5];
    expect(isRateLimitError(limited) && limited.code === 'FILE_UPLOAD_RATE_LIMITED').toBe(true);
    expect((limited as { status: number; retryAfterMs: number }).status).toBe(429);
    expect((limited as { retryAfterMs: number }).retryAfterMs).toBe(1_000);
    // Virtual time: once the window has passed, uploads go through again.
    await world.advanceTime(1_000);
    expect(await rawUpload(world, body)).toBe(201);
  });

  // The UserClient queues too (issue #28: 7 uploads in a second gave it 2 × FILE_UPLOAD_RATE_LIMITED).
  it.each(['agent', 'user'] as const)(
    'the SDK queues uploads behind its client-side limiter instead of meeting 429 (%s)',
    async (side) => {
      await world.advanceTime(1_000);
      const before = world.server.clock.now();
      const uploads = Array.from({ length: 7 }, () =>
        world[side].files.uploadOnly(world.conversationId, randomBytes(10), { name: 'q' }),
      );
      // The limiter waits on the world's mixed clock: 5 go at once, 2 wait for the next
      // window, which the world satisfies by moving its virtual time (no advanceTime needed).
      const done = await Promise.allSettled(uploads);
      expect(world.server.clock.now() - before).toBeGreaterThanOrEqual(1_000);
      expect(done.filter((d) => d.status === 'rejected')).toEqual([]);
    },
  );

  it('refuses a file above 100 MB on the client before any request (known size)', async () => {
    const err = await world.agent.files
      .upload(world.conversationId, new Uint8Array(100 * 1_048_576 + 1), { name: 'huge' })
      .catch((e: unknown) => e);
    expect(isValidationError(err)).toBe(true);
    expect((err as { params: { reason: string } }).params.reason).toBe('file_too_large');
  });

  it('the answer deadline runs from the end of the body: a slow upload longer than timeoutMs succeeds', async () => {
    await world.advanceTime(1_000);
    const { accessToken } = await world.server.control.accessToken(world.user.session!.userId);
    const rest = createRestClient({ baseUrl: world.server.url, credentials: accessToken, timeoutMs: 200 });
    const ciphertext = await encryptFileBytes(randomBytes(20_000), createFileEncryptionParams());
    const digest = createHash('sha256').update(ciphertext).digest();
    const res = await rest.stream({
      method: 'POST',
      path: uploadPath(world),
      contentType: 'application/octet-stream',
      body: (async function* () {
        for (let at = 0; at < ciphertext.length; at += 4_000) {
          await new Promise((resolve) => setTimeout(resolve, 80)); // about 400 ms in all
          yield ciphertext.subarray(at, at + 4_000);
        }
        yield digest;
      })(),
    });
    for await (const _ of res.body) void _;
    expect(res.status).toBe(201);
  });
});
