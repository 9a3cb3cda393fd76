import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isServiceError } from '../../../packages/sdk/src/core/errors/guards.js';
import {
  createRefFetcher,
  createWebhookReceiver,
  type WebhookReceiverEvent,
} from '../../../packages/sdk/src/webhook/index.js';
import { createNodeHandler } from '../../../packages/sdk/src/webhook/node.js';
import { newDeliveryId, refBody, SECRET, signedHeaders } from '../../fixtures/webhook/deliveries.js';

const TOKEN = 'hsk_' + 'Z9y8'.repeat(10);
const OBJECT = new Uint8Array(1_500_000).map((_, i) => (i * 31) % 256);
const seen: { url: string; auth: string | undefined }[] = [];
let failNext = 0;

function start(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

let service: { server: Server; url: string };
let receiverServer: { server: Server; url: string };
const opened: number[] = [];
const events: WebhookReceiverEvent[] = [];

beforeAll(async () => {
  service = await start((req, res) => {
    seen.push({ url: req.url ?? '', auth: req.headers.authorization });
    if (failNext > 0) {
      failNext--;
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' });
      res.end(
        JSON.stringify({
          error: { code: 'SERVICE_UNAVAILABLE', message: 'busy', i18n_key: 'x', params: {} },
        }),
      );
      return;
    }
    if (req.url !== '/api/r2/objects/big%2Bone%40x') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'nope', i18n_key: 'x', params: {} } }));
      return;
    }
    res.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': String(OBJECT.length),
    });
    res.end(OBJECT);
  });
  const fetchRef = createRefFetcher({ baseUrl: `${service.url}/api`, agentToken: TOKEN });
  const receiver = createWebhookReceiver<number>({
    secret: SECRET,
    fetchRef,
    open: (bytes) => {
      if (Buffer.compare(bytes, OBJECT) !== 0) throw new Error('the fetched object differs');
      opened.push(bytes.length);
      return Promise.resolve(bytes.length);
    },
    handler: () => undefined,
    onEvent: (e) => events.push(e),
  });
  const handle = createNodeHandler(receiver);
  receiverServer = await start((req, res) => void handle(req, res));
});

afterAll(async () => {
  for (const s of [service.server, receiverServer.server]) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

describe('ref deliveries over real HTTP', () => {
  const ref = {
    object_key: 'objects/big+one@x',
    size: OBJECT.length,
    content_type: 'application/octet-stream',
  };

  it('fetches the object with the agent token, checks it and opens it', async () => {
    const body = refBody(ref);
    const res = await fetch(receiverServer.url, { method: 'POST', body, headers: await signedHeaders(body) });
    expect(res.status).toBe(200);
    expect(opened).toContain(OBJECT.length);
    expect(seen.at(-1)).toEqual({ url: '/api/r2/objects/big%2Bone%40x', auth: `Bearer ${TOKEN}` });
  });

  it('retries a 503 from the object store within the delivery', async () => {
    failNext = 1;
    const body = refBody(ref);
    const res = await fetch(receiverServer.url, { method: 'POST', body, headers: await signedHeaders(body) });
    expect(res.status).toBe(200);
  });

  it('answers the delivery with a retryable 502 when the object cannot be fetched, and succeeds on retry', async () => {
    failNext = 3;
    const body = refBody(ref);
    const headers = await signedHeaders(body, { deliveryId: newDeliveryId() });
    const res = await fetch(receiverServer.url, { method: 'POST', body, headers });
    expect(res.status).toBe(502);
    const event = events.find((e) => e.type === 'refFetchError');
    expect(event !== undefined && event.type === 'refFetchError' && isServiceError(event.error)).toBe(true);
    const retry = await fetch(receiverServer.url, { method: 'POST', body, headers });
    expect(retry.status).toBe(200);
  });

  it('reports a 404 object as a ServiceError and answers 502', async () => {
    const body = refBody({ ...ref, object_key: 'objects/missing' });
    const res = await fetch(receiverServer.url, { method: 'POST', body, headers: await signedHeaders(body) });
    expect(res.status).toBe(502);
  });

  it('refuses an object whose size differs from the ref', async () => {
    const direct = createRefFetcher({ baseUrl: `${service.url}/api`, agentToken: TOKEN });
    await expect(direct({ type: 'r2', ...ref, size: ref.size - 1 })).rejects.toMatchObject({
      code: 'TRANSPORT_BAD_RESPONSE',
    });
  });
});
