/**
 * Type matrix consumer: the webhook entries with the real frameworks
 * (Express, Fastify, node:http, fetch) and the Redis de-dup store.
 */
import { createServer } from 'node:http';
import express from 'express';
import Fastify from 'fastify';
import { Agent } from 'agent-messaging-sdk';
import { createWebhookReceiver, verifyWebhook, type WebhookReceiverEvent } from 'agent-messaging-sdk/webhook';
import { createExpressMiddleware } from 'agent-messaging-sdk/webhook/express';
import { createFastifyHandler, createFastifyPlugin } from 'agent-messaging-sdk/webhook/fastify';
import { createFetchHandler } from 'agent-messaging-sdk/webhook/fetch';
import { createNodeHandler } from 'agent-messaging-sdk/webhook/node';
import { createRedisDedupStore, type RedisClientLike } from 'agent-messaging-sdk/webhook/redis';

declare const redis: RedisClientLike;

export async function main(): Promise<void> {
  const agent = new Agent({
    baseUrl: 'https://api.example.com',
    agentId: 'a1',
    token: 'hsk_x',
    mode: 'webhook',
    webhook: { secret: 'whsec_x' },
  });
  const hook = agent.webhook();

  const receiver = createWebhookReceiver({
    secret: 'whsec_x',
    dedup: createRedisDedupStore({ client: redis }),
    handler: (event) => void event,
    onEvent: (event: WebhookReceiverEvent) => void event.type,
  });
  void verifyWebhook;

  // Express: the agent's middleware and the receiver's.
  const app = express();
  app.post('/webhook', hook.expressMiddleware());
  app.post('/webhook2', createExpressMiddleware(receiver));
  app.use(express.json());

  // Fastify: the agent's plugin, the receiver's plugin and a bare handler.
  const fastify = Fastify();
  await fastify.register(hook.fastifyPlugin({ path: '/webhook' }));
  await fastify.register(createFastifyPlugin(receiver, { path: '/webhook2' }));
  const fastifyHandler = createFastifyHandler(receiver);
  fastify.post('/webhook3', (request, reply) => fastifyHandler(request, reply));

  // node:http: as the server's listener, and called from one.
  createServer(hook.nodeHandler());
  createServer(agent.webhookHandler());
  const node = createNodeHandler(receiver);
  createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/webhook') return void node(req, res);
    res.writeHead(404).end();
  });

  // fetch: a Request in, a Response out.
  const fetchHandler = createFetchHandler(receiver);
  const response: Response = await fetchHandler(
    new Request('http://localhost/webhook', { method: 'POST', body: '{}' }),
  );
  const agentResponse: Response = await agent.fetchHandler()(new Request('http://localhost/webhook'));
  void [response.status, agentResponse.status];
}
