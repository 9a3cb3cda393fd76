/**
 * An echo bot over WebSocket.
 *
 *   ams serve --dev --port 8080 &
 *   ams dev bootstrap > .env    # AMS_BASE_URL, AMS_AGENT_ID, AMS_AGENT_TOKEN, AMS_KEY_DIR, …
 *   npx tsx --env-file=.env examples/echo-bot.ts
 */
import { Agent } from 'agent-messaging-sdk';
import { agentEnv, closeOnSignal } from './env.js';

const agent = new Agent({ ...agentEnv() });

agent.on('message.new', async (msg) => {
  await msg.reply(`echo: ${msg.text ?? JSON.stringify(msg.payload)}`);
});
agent.on('error', (err) => console.error('error:', err.code, err.message));
agent.on('fatal', (err) => {
  console.error('stopped for good:', err.code);
  process.exit(1);
});

await agent.connect();
console.log(`echo-bot: connected as ${agent.agentId}`);
closeOnSignal(() => agent.close({ timeoutMs: 5_000 }));
