/**
 * A response body the SDK stops reading (a file that failed its checks, an
 * oversized error answer) is destroyed without an unhandled 'error': undici
 * emits `RequestAbortedError` when a body is destroyed before its end, and a
 * Readable with no 'error' listener would end the host process with it
 * (issue #28). Real undici requests against a node:http server on 127.0.0.1
 * that keeps sending; the process-level listeners catch what would escape.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent as UndiciAgent, request } from 'undici';
import { forEachPiece } from '../../../packages/sdk/src/files/body-pieces.js';
import { discardBody } from '../../../packages/sdk/src/transport/rest/discard-body.js';

let server: Server;
let url: string;
const dispatcher = new UndiciAgent();

beforeAll(async () => {
  // 4 MB in 16 KB pieces, slowly enough that the client stops long before the end.
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    let sent = 0;
    const timer = setInterval(() => {
      if (sent >= 4 << 20 || res.destroyed) {
        clearInterval(timer);
        res.end();
        return;
      }
      res.write(Buffer.alloc(16 << 10, 7));
      sent += 16 << 10;
    }, 1);
    res.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await dispatcher.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Runs `fn`, then waits a little; resolves with whatever escaped to the process meanwhile. */
async function escapedDuring(fn: () => Promise<void>): Promise<unknown[]> {
  const escaped: unknown[] = [];
  const onError = (err: unknown): void => void escaped.push(err);
  process.on('uncaughtException', onError);
  process.on('unhandledRejection', onError);
  try {
    await fn();
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    process.off('uncaughtException', onError);
    process.off('unhandledRejection', onError);
  }
  return escaped;
}

describe('an abandoned response body', () => {
  it('forEachPiece: a callback that throws rejects with its error and nothing escapes', async () => {
    const escaped = await escapedDuring(async () => {
      const res = await request(url, { dispatcher });
      let pieces = 0;
      const failure = await forEachPiece(res.body, () => {
        if (++pieces === 3) throw new Error('integrity check failed');
        return undefined;
      }).catch((err: unknown) => err);
      expect(failure).toEqual(new Error('integrity check failed'));
    });
    expect(escaped).toEqual([]);
  });

  it('discardBody: destroying a body mid-way raises nothing', async () => {
    const escaped = await escapedDuring(async () => {
      const res = await request(url, { dispatcher });
      for await (const _ of res.body) break; // one piece read, then abandoned (the iterator destroys it)
      const again = await request(url, { dispatcher });
      discardBody(again.body);
      expect(again.body.destroyed).toBe(true);
    });
    expect(escaped).toEqual([]);
  });
});
