/**
 * Encrypted files end to end against the reference server: agent → human and
 * human → agent, from bytes, a path and a web stream; the service stores
 * ciphertext only; a non-member of the conversation cannot fetch the object.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FilePayloadSchema, type FilePayload } from '../../../packages/sdk/src/core/protocol/file-payload.js';
import { objectKeyPath } from '../../../packages/sdk/src/transport/rest/paths.js';
import { createTestWorld, type TestWorld } from '../../../packages/dev/src/testing/index.js';
import type { IncomingMessage } from '../../../packages/sdk/src/agent/index.js';
import { FileIntegrityError, isValidationError } from '../../../packages/sdk/src/core/errors/index.js';
import type { FileDownload } from '../../../packages/sdk/src/files/index.js';

let world: TestWorld;
let dir: string;
beforeAll(async () => {
  world = await createTestWorld();
  dir = await mkdtemp(join(tmpdir(), 'ams-files-test-'));
});
afterAll(async () => {
  await world.close();
  await rm(dir, { recursive: true, force: true });
});

describe('file round trip', () => {
  it('agent → human: bytes uploaded, a sealed file message received, downloaded and verified', async () => {
    const bytes = randomBytes(200_000);
    const { file } = await world.agent.files.upload(world.conversationId, bytes, {
      name: 'data.bin',
      contentType: 'application/octet-stream',
    });
    expect(file.size).toBe(bytes.length);
    const reply = await world.waitForReply({ kind: 'file' });
    const payload = FilePayloadSchema.parse(reply.payload);
    expect(payload.object_key).toBe(file.object_key);
    const download = await world.user.files.download(payload);
    expect(download.name).toBe('data.bin');
    expect(Buffer.from(await download.toBytes()).equals(bytes)).toBe(true);
  });

  it('human → agent: a path uploaded, the agent downloads it to a path', async () => {
    const src = join(dir, 'notes.txt');
    const text = 'hello file\n'.repeat(20_000);
    await writeFile(src, text);
    await world.user.files.upload(world.conversationId, src, { contentType: 'text/plain' });
    const event = (await world.waitForDelivery()) as IncomingMessage;
    expect(event.payload.type).toBe('file');
    const download = await world.agent.files.download(event.payload as FilePayload);
    expect(download.name).toBe('notes.txt');
    const out = join(dir, 'received.txt');
    await download.toFile(out);
    expect(await readFile(out, 'utf8')).toBe(text);
  });

  it('uploads from a web ReadableStream of unknown length (chunked body)', async () => {
    const parts = [randomBytes(70_000), randomBytes(1), randomBytes(65_536)];
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const p of parts) controller.enqueue(p);
        controller.close();
      },
    });
    const { file } = await world.agent.files.upload(world.conversationId, stream, { name: 'stream.bin' });
    await world.waitForReply();
    const got = await (await world.user.files.download(file)).toBytes();
    expect(Buffer.from(got).equals(Buffer.concat(parts))).toBe(true);
  });

  it('uploads an empty file', async () => {
    const { file } = await world.agent.files.upload(world.conversationId, new Uint8Array(), {
      name: 'empty',
    });
    await world.waitForReply();
    expect((await (await world.user.files.download(file)).toBytes()).length).toBe(0);
  });

  it('the service stores ciphertext only: the object does not contain the plaintext', async () => {
    const marker = Buffer.from('PLAINTEXT-MARKER-'.repeat(4000));
    const { file } = await world.agent.files.upload(world.conversationId, marker, { name: 'm.txt' });
    await world.waitForReply();
    const stored = Buffer.from((await world.agent.api.rest.getBytes(objectKeyPath(file.object_key))).bytes);
    expect(stored.length).toBe(file.ciphertext_size);
    expect(stored.includes(Buffer.from('PLAINTEXT-MARKER-'))).toBe(false);
  });

  it('a payload that does not match the object fails with FileIntegrityError; toFile leaves nothing behind', async () => {
    // The agent's upload limiter (5 per second) runs on the world's virtual clock.
    await world.advanceTime(1_000);
    const { file } = await world.agent.files.upload(world.conversationId, randomBytes(100_000), {
      name: 'a',
    });
    await world.waitForReply();
    const { file: other } = await world.agent.files.upload(world.conversationId, randomBytes(100_000), {
      name: 'b',
    });
    await world.waitForReply();
    const failureOf = async (
      payload: unknown,
      read: (d: FileDownload) => Promise<unknown>,
    ): Promise<string> => {
      const err = await world.user.files
        .download(payload as FilePayload)
        .then(read)
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(FileIntegrityError);
      return (err as FileIntegrityError).failure;
    };
    const wrongHash = { ...file, ciphertext_sha256: other.ciphertext_sha256 };
    expect(await failureOf(wrongHash, (d) => d.toBytes())).toBe('sha256');
    const swapped = { ...file, object_key: other.object_key, ciphertext_sha256: other.ciphertext_sha256 };
    expect(await failureOf(swapped, (d) => d.toBytes())).toBe('chunk');
    expect(await failureOf({ ...file, ciphertext_size: file.ciphertext_size - 1 }, (d) => d.toBytes())).toBe(
      'size',
    );
    expect(await failureOf({ ...file, size: file.size + 1 }, (d) => d.toBytes())).toBe('size');
    const out = join(dir, 'never.bin');
    expect(await failureOf(wrongHash, (d) => d.toFile(out))).toBe('sha256');
    await expect(readFile(out)).rejects.toThrow();
    await expect(readFile(`${out}.part`)).rejects.toThrow();
  });

  it('a payload that is not a valid file payload is a ValidationError before any request', async () => {
    const err = await world.user.files
      .download({ type: 'file', object_key: '../x' } as unknown as FilePayload)
      .catch((e: unknown) => e);
    expect(isValidationError(err)).toBe(true);
  });

  it('middleware: ctx.downloadFile() and ctx.replyWithFile() answer a file with a reversed copy', async () => {
    await world.advanceTime(1_000);
    world.agent.use(async (ctx, next) => {
      if (ctx.type !== 'message.new' || (ctx.event as IncomingMessage).payload.type !== 'file') return next();
      const bytes = await (await ctx.downloadFile()).toBytes();
      await ctx.replyWithFile(bytes.reverse(), { name: 'reversed.bin' });
    });
    const original = randomBytes(70_000);
    await world.user.files.upload(world.conversationId, original, { name: 'in.bin' });
    const reply = await world.waitForReply({ kind: 'file' });
    const copy = await (await world.user.files.download(reply.payload as FilePayload)).toBytes();
    expect(Buffer.from(copy).equals(Buffer.from(original).reverse())).toBe(true);
  });
});
