import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  DISCARD_MAX_BYTES,
  readNodeStream,
  type RawBodyResult,
} from '../../../../packages/sdk/src/webhook/adapters/node-body.js';

function request(headers: Record<string, string> = {}): PassThrough & { headers: Record<string, string> } {
  return Object.assign(new PassThrough(), { headers });
}

/** The result if the promise has settled by the next macrotask, else 'pending'. */
async function settled(p: Promise<RawBodyResult>): Promise<RawBodyResult | 'pending'> {
  return Promise.race([p, new Promise<'pending'>((r) => setTimeout(() => r('pending'), 20))]);
}

describe('readNodeStream (issues #11 and #28: the sender can read the 413, and gets it)', () => {
  it('discards 16 MB at most', () => {
    expect(DISCARD_MAX_BYTES).toBe(16 * 1024 * 1024);
  });

  it('returns a body within the cap', async () => {
    const req = request();
    const result = readNodeStream(req, 10, 100);
    req.write(Buffer.from('hello'));
    req.end(Buffer.from('world'));
    expect(await result).toEqual({ kind: 'ok', body: new Uint8Array(Buffer.from('helloworld')) });
  });

  it('reads an oversized body to its end before reporting too_large', async () => {
    const req = request();
    const result = readNodeStream(req, 10, 100);
    req.write(Buffer.alloc(50));
    expect(await settled(result)).toBe('pending');
    req.end(Buffer.alloc(49));
    expect(await result).toEqual({ kind: 'too_large' });
    expect(req.readableEnded).toBe(true);
  });

  it('answers at once a body whose Content-Length is over the cap, and discards the rest until its end (issue #28)', async () => {
    const req = request({ 'content-length': '60' });
    const result = await settled(readNodeStream(req, 10, 100));
    if (result === 'pending' || result.kind !== 'too_large')
      throw new Error(`not answered at once: ${String(result)}`);
    const discarded = result.discarded!;
    const state = (): Promise<string> =>
      Promise.race([
        discarded.then(() => 'done'),
        new Promise<string>((r) => setTimeout(() => r('pending'), 20)),
      ]);
    expect(await state()).toBe('pending'); // the honest sender is still writing: the connection stays open
    req.end(Buffer.alloc(60));
    expect(await state()).toBe('done');
  });

  it('destroys a request that promised more than it sends once the discard time bound passed', async () => {
    const req = request({ 'content-length': '60' });
    const result = await readNodeStream(req, 10, 100, 30);
    req.write(Buffer.alloc(5)); // then nothing more
    await (result as { discarded: Promise<void> }).discarded;
    expect(req.destroyed).toBe(true);
  });

  it('destroys a request that sends more than the discard bound after an early answer', async () => {
    const req = request({ 'content-length': '60' });
    const result = await readNodeStream(req, 10, 100, 60_000);
    req.write(Buffer.alloc(101));
    await (result as { discarded: Promise<void> }).discarded;
    expect(req.destroyed).toBe(true);
  });

  it('reports too_large at once past the discard bound', async () => {
    const req = request();
    const result = readNodeStream(req, 10, 100);
    req.write(Buffer.alloc(101));
    expect(await settled(result)).toEqual({ kind: 'too_large' });
  });

  it('reports too_large at once when Content-Length is over the discard bound', async () => {
    const req = request({ 'content-length': '101' });
    expect(await settled(readNodeStream(req, 10, 100))).toEqual({ kind: 'too_large' });
  });
});
