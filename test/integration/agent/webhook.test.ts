/**
 * Webhook mode end to end: the reference server delivers to the agent's
 * webhook handler on 127.0.0.1 (Node adapter), the same pipeline opens,
 * de-duplicates and dispatches, oversize messages come through `ref`, and
 * one de-duplication store carries across a switch to WebSocket mode.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  IncomingMessage as AgentMessage,
  RelationEvent,
} from '../../../packages/sdk/src/agent/index.js';
import { KeyRing, MemoryKeyStore } from '../../../packages/sdk/src/crypto/index.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { createMemoryDedupStore } from '../../../packages/sdk/src/webhook/index.js';
import type { WebhookReceiver } from '../../../packages/sdk/src/webhook/index.js';
import type { NodeWebhookHandler } from '../../../packages/sdk/src/webhook/node.js';
import { createTestAgent, createTestUser } from '../../helpers/server-agents.js';
import {
  agentSigningKey,
  createAccount,
  newAgent,
  recordingLogger,
  startWorld,
  UserSide,
  waitFor,
} from '../../helpers/agent-world.js';

interface Recorded {
  body: Uint8Array;
  headers: Record<string, string>;
}

/** An HTTP server on 127.0.0.1:0 that records each raw request and hands it to `handler`. */
async function hookServer(): Promise<{
  url: string;
  server: Server;
  requests: Recorded[];
  use: (h: NodeWebhookHandler | ((r: Recorded) => Promise<{ status: number; body: string }>)) => void;
}> {
  const requests: Recorded[] = [];
  let handler: NodeWebhookHandler | ((r: Recorded) => Promise<{ status: number; body: string }>) | undefined;
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = new Uint8Array(Buffer.concat(chunks));
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const recorded = { body, headers };
      requests.push(recorded);
      if (handler === undefined) {
        res.writeHead(503).end();
      } else if (handler.length === 1) {
        void (handler as (r: Recorded) => Promise<{ status: number; body: string }>)(recorded).then((r) =>
          res.writeHead(r.status, { 'content-type': 'application/json' }).end(r.body),
        );
      } else {
        (req as { rawBody?: Uint8Array }).rawBody = body;
        void (handler as NodeWebhookHandler)(req, res);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, server, requests, use: (h) => void (handler = h) };
}

describe('webhook mode, end to end', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startWorld();
  });
  afterAll(() => server.close());

  it('relation, message and reply, an oversize message by ref, duplicates skipped, WS-only warning', async () => {
    const account = await createAccount(server);
    const log = recordingLogger();
    const agent = newAgent(server, account, { mode: 'webhook', logger: log });
    agent.on('agent.governance', () => undefined);
    agent.on('agent.governance', () => undefined);
    expect(log.lines.filter((l) => l.includes('agent.governance'))).toHaveLength(1);
    const messages: AgentMessage[] = [];
    const relations: RelationEvent[] = [];
    agent.on('relation.established', (e) => void relations.push(e));
    agent.on('message.new', async (m) => {
      messages.push(m);
      if (m.text === 'hello') await m.reply('hi from a webhook');
    });
    await agent.connect(); // keys registered, nothing to recover
    const hook = await hookServer();
    const { secret } = await server.control.setWebhook(account.agentId, { url: hook.url });
    hook.use(agent.webhook({ secret }).nodeHandler());

    const side = new UserSide(server, account.owner, account.agentId);
    await side.addAgent();
    await side.send({ type: 'text', text: 'hello' });
    const big = 'x'.repeat(1_100_000);
    await side.send({ type: 'text', text: big });
    await waitFor(() => messages.length === 2, 'both messages', 20_000);
    await server.control.deliveryIdle();
    expect(relations).toHaveLength(1);
    expect(relations[0]!.transport).toBe('webhook');
    expect(messages.map((m) => m.text?.length)).toEqual([5, big.length]);
    const viaRef = JSON.parse(new TextDecoder().decode(hook.requests[2]!.body)) as { ref?: unknown };
    expect(viaRef.ref).toMatchObject({ type: 'r2' });

    const replies = await side.repliesFromAgent(await agentSigningKey(server, account));
    expect(replies.map((r) => r.payload)).toEqual([{ type: 'text', text: 'hi from a webhook' }]);

    // The service sends a delivery again: acknowledged as a duplicate, handler not called.
    const again = await agent
      .webhook()
      .receiver.handle({ body: hook.requests[1]!.body, headers: hook.requests[1]!.headers });
    expect(again.status).toBe(200);
    expect(JSON.parse(again.body)).toMatchObject({ data: { status: 'duplicate' } });
    expect(messages).toHaveLength(2);
    expect(agent.stats()).toMatchObject({ received: 4, handled: 3, duplicates: 1, decryptFailures: 0 });

    const closed = await agent.close();
    expect(closed.drained).toBe(true);
    const late = await agent
      .webhook()
      .receiver.handle({ body: hook.requests[1]!.body, headers: hook.requests[1]!.headers });
    expect(late.status).toBe(503);
    expect(late.headers['retry-after']).toBe('30');
    await new Promise<void>((resolve) => hook.server.close(() => resolve()));
  });
});

describe('one de-duplication store across a mode switch', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startWorld({ virtualTime: true });
  });
  afterAll(() => server.close());

  it('a delivery handled by webhook (answer lost) and re-sent over WebSocket is skipped', async () => {
    const owner = await createTestUser(server);
    const registered = await createTestAgent(server, owner);
    const keyStore = new MemoryKeyStore();
    await keyStore.save(KeyRing.create(registered.keys, server.clock.now()));
    const dedupStore = createMemoryDedupStore();
    const hook = await hookServer();
    const { secret } = await server.control.setWebhook(registered.agentId, { url: hook.url });

    const viaWebhook = newAgent(server, registered, { mode: 'webhook', keyStore, dedupStore });
    const webhookTexts: string[] = [];
    viaWebhook.on('message.new', (m) => void webhookTexts.push(m.text ?? ''));
    const receiver: WebhookReceiver = viaWebhook.webhook({ secret }).receiver;
    let loseAnswers = false;
    hook.use(async (r: Recorded) => {
      const answer = await receiver.handle({ body: r.body, headers: r.headers });
      return loseAnswers ? { status: 503, body: '' } : answer;
    });
    const side = new UserSide(server, owner, registered.agentId);
    await side.addAgent();
    await server.control.deliveryIdle();
    loseAnswers = true;
    await side.send({ type: 'text', text: 'handled once' });
    await server.control.deliveryIdle();
    expect(webhookTexts).toEqual(['handled once']);
    expect(hook.requests.length).toBeGreaterThanOrEqual(3); // the delivery and its immediate retry
    await viaWebhook.close();

    await server.control.removeWebhook(registered.agentId);
    const viaSocket = newAgent(server, registered, { keyStore, dedupStore });
    const socketTexts: string[] = [];
    viaSocket.on('message.new', (m) => void socketTexts.push(m.text ?? ''));
    const dupes: string[] = [];
    viaSocket.on('duplicate', (d) => void dupes.push(d.by));
    await viaSocket.connect();
    await waitFor(() => dupes.length === 1, 'the re-sent delivery');
    expect(socketTexts).toEqual([]);
    expect(dupes).toEqual(['delivery_id']);
    await side.send({ type: 'text', text: 'new one' });
    await waitFor(() => socketTexts.length === 1, 'the next message');
    expect(socketTexts).toEqual(['new one']);
    await viaSocket.close();
    await new Promise<void>((resolve) => hook.server.close(() => resolve()));
  });
});
