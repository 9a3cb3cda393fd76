/**
 * An echo bot in webhook mode, with plain `node:http`.
 *
 *   ams serve --dev --port 8080 &
 *   ams dev bootstrap --webhook-url http://127.0.0.1:3000/webhook > .env
 *   npx tsx --env-file=.env examples/webhook-node-http.ts
 */
import { createServer } from 'node:http';
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

const webhook = agent.webhookHandler(); // answers every request it is given: route only /webhook to it
const server = createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/webhook') return void webhook(req, res);
  res.writeHead(404).end();
});
server.listen(requirePort(), '127.0.0.1', () => {
  void agent
    .connect()
    .then(() => console.log(`webhook-node-http: listening on 127.0.0.1:${requirePort()}/webhook`));
});
closeOnSignal(async () => {
  await agent.close({ timeoutMs: 5_000 });
  server.close();
});
