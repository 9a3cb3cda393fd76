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

describe('readNodeStream (issue #11: the 413 is written once the sender has finished)', () => {
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

  it('waits for the end of a body whose Content-Length is over the cap but within the discard bound', async () => {
    const req = request({ 'content-length': '60' });
    const result = readNodeStream(req, 10, 100);
    expect(await settled(result)).toBe('pending');
    req.end(Buffer.alloc(60));
    expect(await result).toEqual({ kind: 'too_large' });
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
