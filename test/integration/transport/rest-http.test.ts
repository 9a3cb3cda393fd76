import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isTransportError } from '../../../packages/sdk/src/core/errors/guards.js';
import {
  createRestClient,
  objectKeyPath,
  type RestClient,
} from '../../../packages/sdk/src/transport/rest/index.js';
import { json, stageHttpServer, type StagedHttpServer } from '../../helpers/transport-http.js';

const TOKEN = 'hsk_' + 'Qw7e'.repeat(10);
let server: StagedHttpServer;
let rest: RestClient;

beforeAll(async () => {
  server = await stageHttpServer();
  // The default dispatcher: the shared keep-alive undici Agent, over real sockets.
  rest = createRestClient({
    baseUrl: `${server.url}/api`,
    credentials: TOKEN,
    sleep: () => Promise.resolve(),
  });
});
afterAll(() => server.close());
beforeEach(() => {
  server.seen.length = 0;
});

describe('REST client against a real node:http server', () => {
  it('sends the bearer token in the Authorization header only, never in the request line', async () => {
    server.handler = (req, res, body) =>
      json(res, 200, { data: { echoed: JSON.parse(body) as unknown, url: req.url } });
    const data = await rest.post(
      '/agents/a1/messages',
      { conversation_id: 'c1', payload: { type: 'text', text: 'hello' } },
      { schema: z.object({ echoed: z.unknown(), url: z.string() }), limiter: 'messages' },
    );
    expect(data).toEqual({
      echoed: { conversation_id: 'c1', payload: { type: 'text', text: 'hello' } },
      url: '/api/agents/a1/messages',
    });
    const seen = server.seen[0]!;
    expect(seen.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(seen.headers['content-type']).toBe('application/json');
    expect(seen.url).not.toContain(TOKEN);
    const requestLines = server
      .raw()
      .split('\r\n')
      .filter((l) => /^(GET|POST|PUT|DELETE|HEAD|PATCH) /.test(l));
    expect(requestLines.length).toBeGreaterThan(0);
    for (const line of requestLines) expect(line).not.toContain(TOKEN);
  });

  it('reads a binary object with its content type and size', async () => {
    const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256));
    server.handler = (_req, res) =>
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes);
    const got = await rest.getBytes(objectKeyPath('objects/o-1'), { limiter: 'objects' });
    expect(got.size).toBe(bytes.length);
    expect(got.contentType).toBe('application/octet-stream');
    expect(Buffer.from(got.bytes).equals(bytes)).toBe(true);
    expect(server.seen[0]!.url).toBe('/api/r2/objects/o-1');
  });

  it('retries a GET whose connection was reset, but not a POST', async () => {
    let resets = 1;
    server.handler = (req, res) => {
      if (resets-- > 0) req.socket.destroy();
      else json(res, 200, { data: 'ok' });
    };
    await expect(rest.get('/agents/a1/delivery-logs')).resolves.toBe('ok');
    expect(server.seen).toHaveLength(2);

    server.seen.length = 0;
    resets = 1;
    const err = await rest.post('/agents/a1/messages', {}).catch((e: unknown) => e);
    expect(isTransportError(err) && err.code === 'TRANSPORT_NETWORK').toBe(true);
    expect(server.seen).toHaveLength(1);
  });

  it('maps a service error object to its code and status', async () => {
    server.handler = (_req, res) =>
      json(res, 403, {
        error: {
          code: 'RELATION_REVOKED',
          message: 'revoked',
          i18n_key: 'x',
          params: { conversation_id: 'c1' },
        },
      });
    await expect(rest.post('/agents/a1/messages', {})).rejects.toMatchObject({
      code: 'RELATION_REVOKED',
      status: 403,
      params: { conversation_id: 'c1' },
    });
  });
});
