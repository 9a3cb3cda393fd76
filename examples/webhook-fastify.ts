/**
 * An echo bot in webhook mode, with Fastify 5.
 *
 *   ams serve --dev --port 8080 &
 *   ams dev bootstrap --webhook-url http://127.0.0.1:3000/webhook > .env
 *   npx tsx --env-file=.env examples/webhook-fastify.ts
 */
import Fastify from 'fastify';
import { Agent } from 'agent-messaging-sdk';
import { agentEnv, closeOnSignal, requireEnv, requirePort } from './env.js';

const agent = new Agent({
  shutdownSignals: false, // this process's HTTP server owns the signals: closeOnSignal below
  ...agentEnv(),
  mode: 'webhook',
  webhook: { secret: requireEnv('AMS_WEBHOOK_SECRET') },
});
agent.on('message.new', async (msg) => {
  await msg.reply(`echo: ${msg.text ?? JSON.stringify(msg.payload)}`);
});
agent.on('error', (err) => console.error('error:', err)); // a wrong secret shows here too

const app = Fastify();
await app.register(agent.webhook().fastifyPlugin({ path: '/webhook' }));
await app.listen({ port: requirePort(), host: '127.0.0.1' });
await agent.connect();
console.log(`webhook-fastify: listening on 127.0.0.1:${requirePort()}/webhook`);
closeOnSignal(async () => {
  await agent.close({ timeoutMs: 5_000 });
  await app.close();
});
