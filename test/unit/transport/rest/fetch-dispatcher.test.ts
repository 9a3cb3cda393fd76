import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAmsError } from '../../../../packages/sdk/src/core/errors/guards.js';
import {
  createFetchDispatcher,
  usableDispatcher,
} from '../../../../packages/sdk/src/transport/rest/fetch-dispatcher.js';
import { createRestClient } from '../../../../packages/sdk/src/transport/rest/index.js';

// The fallback the REST client uses on Bun (whose `undici` has no working Agent),
// checked here on Node's fetch against a real HTTP server; .ci/runtimes.sh runs an
// Agent on Bun through it.
let server: Server;
let origin: string;
const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (req.url === '/redirect') {
        res.writeHead(302, { location: '/elsewhere' }).end();
      } else if (req.url === '/big') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end(Buffer.alloc(256 * 1024, 7));
      } else if (req.url === '/error') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: { code: 'AGENT_NOT_FOUND', message: 'no such agent', i18n_key: 'x', params: {} },
          }),
        );
      } else {
        res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req-1' });
        res.end(JSON.stringify({ data: { echo: body, path: req.url } }));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function text(body: AsyncIterable<Uint8Array>): Promise<string> {
  let out = '';
  for await (const chunk of body) out += Buffer.from(chunk).toString('utf8');
  return out;
}

describe('fetch-backed dispatcher', () => {
  it('sends method, path with query, headers and body; answers status, lower-case headers and body', async () => {
    const d = createFetchDispatcher();
    const res = await d.request({
      origin,
      path: '/a/b?x=1',
      method: 'POST',
      headers: { 'Content-Type': 'application/json', authorization: 'Bearer t' },
      body: '{"k":1}',
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-request-id']).toBe('req-1');
    expect(JSON.parse(await text(res.body))).toEqual({ data: { echo: '{"k":1}', path: '/a/b?x=1' } });
    const last = seen.at(-1)!;
    expect(last).toMatchObject({ method: 'POST', url: '/a/b?x=1', body: '{"k":1}' });
    expect(last.headers.authorization).toBe('Bearer t');
  });

  it('does not follow redirects (as undici request does not)', async () => {
    const res = await createFetchDispatcher().request({ origin, path: '/redirect', method: 'GET' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/elsewhere');
    expect(seen.some((s) => s.url === '/elsewhere')).toBe(false);
  });

  it('stops reading when the body is destroyed', async () => {
    const res = await createFetchDispatcher().request({ origin, path: '/big', method: 'GET' });
    let read = 0;
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      read += chunk.length;
      res.body.destroy();
      break;
    }
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThan(256 * 1024);
  });

  it('rejects on an aborted signal and on a refused connection', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(
      createFetchDispatcher().request({ origin, path: '/', method: 'GET', signal: controller.signal }),
    ).rejects.toThrow();
    await expect(
      createFetchDispatcher().request({ origin: 'http://127.0.0.1:1', path: '/', method: 'GET' }),
    ).rejects.toThrow();
  });

  it('carries the REST client: JSON answers, typed service errors, capped bodies', async () => {
    const rest = createRestClient({
      baseUrl: origin,
      credentials: 'hsk_test',
      dispatcher: createFetchDispatcher() as Dispatcher,
    });
    await expect(rest.post('/x', { a: 1 })).resolves.toEqual({ echo: '{"a":1}', path: '/x' });
    const err = await rest.get('/error').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isAmsError(err) && err.code).toBe('AGENT_NOT_FOUND');
    const big = await rest.getBytes('/big');
    expect(big.size).toBe(256 * 1024);
  });
});

describe('usableDispatcher', () => {
  it('keeps a real undici Agent', async () => {
    const agent = new Agent();
    expect(usableDispatcher(agent)).toBe(agent);
    await agent.close();
  });

  it('replaces an Agent without request (Bun’s undici) by the fetch dispatcher', async () => {
    const stub = {} as Dispatcher;
    const d = usableDispatcher(stub);
    expect(d).not.toBe(stub);
    const res = await d.request({ origin, path: '/ok', method: 'GET' });
    expect(res.statusCode).toBe(200);
  });
});
