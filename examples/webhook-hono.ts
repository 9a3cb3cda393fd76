/**
 * An echo bot in webhook mode, with Hono on Node (`@hono/node-server`): the
 * fetch-style handler, the same one Next.js, Workers, Deno or Bun would use.
 *
 *   ams serve --dev --port 8080 &
 *   ams dev bootstrap --webhook-url http://127.0.0.1:3000/webhook > .env
 *   npx tsx --env-file=.env examples/webhook-hono.ts
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
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

const handle = agent.fetchHandler();
const app = new Hono();
app.post('/webhook', (c) => handle(c.req.raw));

const server = serve({ fetch: app.fetch, port: requirePort(), hostname: '127.0.0.1' }, () => {
  void agent
    .connect()
    .then(() => console.log(`webhook-hono: listening on 127.0.0.1:${requirePort()}/webhook`));
});
closeOnSignal(async () => {
  await agent.close({ timeoutMs: 5_000 });
  server.close();
});
