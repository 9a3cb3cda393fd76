import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createWebhookReceiver,
  verifyWebhook,
  type WebhookEvent,
} from '../../../packages/sdk/src/webhook/index.js';
import { runCli } from '../../../packages/dev/src/cli/run.js';
import { answer, startScriptedReceiver, type ScriptedReceiver } from '../../helpers/server-receiver.js';
import { captureIo } from '../../unit/cli/helpers.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const SECRET = 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA==';

describe('ams webhook sign → a local receiver', () => {
  let receiver: ScriptedReceiver;
  beforeAll(async () => {
    receiver = await startScriptedReceiver();
  });
  afterAll(() => receiver.close());

  it('sends a default message.new delivery that verifyWebhook accepts; exit 0 on 200', async () => {
    receiver.script({ status: 200, body: '{"data":{"status":"processed"}}' });
    const io = captureIo({ env: { AMS_WEBHOOK_SECRET: SECRET, AMS_AGENT_ID: 'agent-7' } });
    const before = receiver.requests.length;
    expect(await runCli(['webhook', 'sign', '--url', receiver.url], io)).toBe(0);
    expect(io.out).toBe(
      'HTTP 200 OK: delivered (the service counts it as done)\n{"data":{"status":"processed"}}\n',
    );
    const req = receiver.requests[before]!;
    const verified = await verifyWebhook({ body: req.body, headers: req.headers, secret: SECRET });
    expect(verified.delivery).toMatchObject({ type: 'message.new', version: 'v1' });
    expect(verified.agentId).toBe('agent-7');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['content-length']).toBe(String(req.body.length));
  });

  it('signs a body file byte for byte with the given timestamp and delivery id', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ams-sign-'));
    const file = join(dir, 'body.json');
    const body =
      '{"type":"relation.revoked","version":"v1","wire_envelope":"eA==","metadata":{"conversation_id":"c","sender_id":"s","created_at":"2026-01-01T00:00:00.000Z"}}\n';
    writeFileSync(file, body);
    const id = '019b7a1c-3e00-7c4d-9a2b-5f1e2d3c4b5a';
    const before = receiver.requests.length;
    const io = captureIo();
    const argv = [
      'webhook',
      'sign',
      '--secret',
      SECRET,
      '--url',
      receiver.url,
      '--body',
      file,
      '--delivery-id',
      id,
      '--timestamp',
      '2026-01-01T00:00:00Z',
      '--json',
    ];
    expect(await runCli(argv, io)).toBe(0);
    const req = receiver.requests[before]!;
    expect(new TextDecoder().decode(req.body)).toBe(body);
    expect(req.headers['x-service-timestamp']).toBe('1767225600');
    expect(req.headers['x-service-delivery-id']).toBe(id);
    expect(req.headers['x-service-agent-id']).toBeUndefined();
    await expect(
      verifyWebhook({
        body: req.body,
        headers: req.headers,
        secret: SECRET,
        receivedAtMs: 1_767_225_600_000,
      }),
    ).resolves.toMatchObject({ deliveryId: id });
    expect(JSON.parse(io.out)).toEqual({
      url: receiver.url,
      delivery_id: id,
      timestamp: 1_767_225_600,
      status: 200,
      outcome: 'delivered',
      response_body: '',
    });
  });

  it.each([
    [
      answer.status(401),
      'HTTP 401 Unauthorized: permanent failure (the service does not retry a 4xx)',
      'permanent_failure',
    ],
    [answer.status(503), 'HTTP 503 Service Unavailable: temporary failure (retried per schedule)', 'retry'],
    [
      answer.status(429, { 'retry-after': '30' }),
      'HTTP 429 Too Many Requests: rate limited, retried after 30 s',
      'retry',
    ],
    [
      answer.status(202),
      'HTTP 202 Accepted: not 200/201/204: a temporary failure (retried per schedule)',
      'retry',
    ],
  ])('exits 1 and explains what the service would do with %j', async (action, line, outcome) => {
    receiver.script(action);
    const io = captureIo({ env: { AMS_WEBHOOK_SECRET: SECRET } });
    expect(await runCli(['webhook', 'sign', '--url', receiver.url], io)).toBe(1);
    expect(io.out.split('\n')[0]).toBe(line);
    const json = captureIo({ env: { AMS_WEBHOOK_SECRET: SECRET } });
    receiver.script(action);
    expect(await runCli(['webhook', 'sign', '--url', receiver.url, '--json'], json)).toBe(1);
    expect(JSON.parse(json.out)).toMatchObject({ outcome });
  });

  it('refuses a non-loopback URL without --allow-remote (exit 2, nothing sent)', async () => {
    const io = captureIo({ env: { AMS_WEBHOOK_SECRET: SECRET } });
    expect(await runCli(['webhook', 'sign', '--url', 'https://example.com/hook'], io)).toBe(2);
    expect(io.err).toContain(
      "refusing to send a test delivery to non-loopback host 'example.com' without --allow-remote",
    );
  });

  it('exits 1 with the connection error when nothing listens', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise((r) => server.close(r));
    const io = captureIo({ env: { AMS_WEBHOOK_SECRET: SECRET } });
    expect(await runCli(['webhook', 'sign', '--url', `http://127.0.0.1:${port}/hook`], io)).toBe(1);
    expect(io.err).toMatch(
      /Cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\): is the receiver running\? \(TRANSPORT_NETWORK\)/,
    );
  });

  it.each([
    [['--url', 'http://127.0.0.1:1/'], /--secret \(or AMS_WEBHOOK_SECRET\) is required/],
    [['--secret', SECRET], /--url is required/],
    [
      ['--secret', SECRET, '--url', 'http://127.0.0.1:1/', '--body', '-', '--type', 'x'],
      /--type applies to the default body only/,
    ],
    [['--secret', SECRET, '--print', '--delivery-id', 'a.b'], /deliveryId/],
    [['--secret', 'too-short', '--print'], /at least 32 bytes/],
  ])('exits 2 on bad usage %j', async (argv, message) => {
    const io = captureIo();
    expect(await runCli(['webhook', 'sign', ...argv], io)).toBe(2);
    expect(io.err).toMatch(message);
    expect(io.err).not.toContain('too-short');
  });

  it('never prints the secret', async () => {
    receiver.script({ status: 200 });
    const io = captureIo({ env: { AMS_WEBHOOK_SECRET: SECRET } });
    await runCli(['webhook', 'sign', '--url', receiver.url], io);
    const printed = captureIo({ env: { AMS_WEBHOOK_SECRET: SECRET } });
    await runCli(['webhook', 'sign', '--print', '--json'], printed);
    expect(io.out + io.err + printed.out + printed.err).not.toContain(SECRET);
  });
});

describe('ams webhook sign → a receiver built with the SDK', () => {
  let server: Server;
  let url: string;
  const events: WebhookEvent[] = [];
  beforeAll(async () => {
    const receiver = createWebhookReceiver({ secret: SECRET, handler: (e) => void events.push(e) });
    // The receiver's own flow behind a bare node:http server (no framework adapter needed).
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void receiver
          .handle({ body: new Uint8Array(Buffer.concat(chunks)), headers: req.headers })
          .then((r) => {
            res.writeHead(r.status, r.headers).end(r.body);
          });
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it('is processed by the handler; a wrong secret gets 401 and exit 1', async () => {
    const io = captureIo({ env: { AMS_WEBHOOK_SECRET: SECRET } });
    expect(await runCli(['webhook', 'sign', '--url', url, '--type', 'relation.established'], io)).toBe(0);
    expect(io.out).toMatch(/^HTTP 200 OK: delivered/);
    expect(events.map((e) => e.type)).toEqual(['relation.established']);
    const wrong = captureIo();
    const other = 'b3RoZXItb3RoZXItb3RoZXItb3RoZXItb3RoZXItb3RoZXI=';
    expect(await runCli(['webhook', 'sign', '--secret', other, '--url', url], wrong)).toBe(1);
    expect(wrong.out).toMatch(/^HTTP 401 Unauthorized: permanent failure/);
    expect(wrong.out).toContain('WEBHOOK_SIGNATURE_INVALID');
  });
});
